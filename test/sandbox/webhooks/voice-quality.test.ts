import { describe, expect, it } from 'vitest';
import { settle, signatureMatches, useHarness, useReceivers, waitFor, type Receiver } from './helpers.js';

const h = useHarness();
const startReceiver = useReceivers();

async function subscribe(answers: number[]): Promise<{ receiver: Receiver; id: string; signingSecret: string }> {
  const receiver = await startReceiver(answers);
  const res = await h.control('POST', '/_sandbox/voice-quality/webhooks', { url: `${receiver.url}/vq`, description: 'test receiver' });
  expect(res.status).toBe(201);
  return { receiver, id: res.body.id, signingSecret: res.body.signingSecret };
}

async function runTest(): Promise<{ event: any; deliveries: { deliveryId: string; webhookId: string }[] }> {
  const res = await h.control('POST', '/_sandbox/voice-quality/tests', { iccid: h.sandbox.fixtures.physicalIccid });
  expect(res.status).toBe(202);
  return res.body;
}

async function deliveryOf(deliveryId: string): Promise<any> {
  const res = await h.control('GET', '/_sandbox/voice-quality/deliveries');
  return res.body.deliveries.find((d: { deliveryId: string }) => d.deliveryId === deliveryId);
}

describe('voice quality webhooks', () => {
  it('lists seeded webhooks as a page readable with a standard-tier key', async () => {
    const auth = await h.control('POST', '/api/v1.1/auth/token', { key: h.sandbox.standardKey, secret: h.sandbox.standardSecret });
    const res = await fetch(`${h.sandbox.url}/api/v1.1/voice-quality/webhooks?pageSize=1`, {
      headers: { authorization: `Bearer ${auth.body.data.access_token}` },
    });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.meta).toEqual({ page: 1, pageSize: 1, total: 2, totalPages: 2 });
    expect(body.data[0]).toEqual({
      id: expect.stringMatching(/^vqwh_/),
      url: expect.any(String),
      description: expect.any(String),
      events: ['voice.test.completed'],
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('emits a signed voice.test.completed with its event and delivery headers to every active webhook', async () => {
    const a = await subscribe([200]);
    const b = await subscribe([204]);
    const { event, deliveries } = await runTest();
    expect(deliveries.map((d) => d.webhookId)).toEqual(expect.arrayContaining([a.id, b.id]));
    await waitFor(() => a.receiver.received.length === 1 && b.receiver.received.length === 1, 'both deliveries');
    for (const { receiver, id, signingSecret } of [a, b]) {
      const [request] = receiver.received;
      expect(request!.headers['x-service-event']).toBe('voice.test.completed');
      expect(request!.headers['x-service-delivery']).toBe(deliveries.find((d) => d.webhookId === id)?.deliveryId);
      expect(signatureMatches(request!.rawBody, request!.headers['x-service-signature'], signingSecret)).toBe(true);
      expect(JSON.parse(request!.rawBody)).toEqual(event);
    }
    expect(event).toMatchObject({ id: expect.stringMatching(/^vqt_/), event: 'voice.test.completed', iccid: h.sandbox.fixtures.physicalIccid });
  });

  it('retries after 30 s, 2 min and 10 min, 4 attempts in total, with the same delivery id', async () => {
    const { receiver, id } = await subscribe([500]);
    const { deliveries } = await runTest();
    const deliveryId = deliveries.find((d) => d.webhookId === id)!.deliveryId;
    await waitFor(async () => (await deliveryOf(deliveryId)).attempts === 1, 'attempt 1');
    for (const [i, delayMs] of [30_000, 120_000, 600_000].entries()) {
      await h.advance(delayMs - 1);
      await settle();
      expect((await deliveryOf(deliveryId)).attempts).toBe(i + 1);
      await h.advance(1);
      await waitFor(async () => (await deliveryOf(deliveryId)).attempts === i + 2, `attempt ${i + 2}`);
    }
    await h.advance(3_600_000);
    await settle();
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery']))).toEqual(new Set([deliveryId]));
    expect(await deliveryOf(deliveryId)).toMatchObject({ status: 'FAILED', attempts: 4, responseCode: 500 });
  });

  it('stops retrying on 410 Gone', async () => {
    const { receiver, id } = await subscribe([410]);
    const { deliveries } = await runTest();
    const deliveryId = deliveries.find((d) => d.webhookId === id)!.deliveryId;
    await waitFor(async () => (await deliveryOf(deliveryId)).status === 'FAILED', 'the delivery to end');
    await h.advance(3_600_000);
    await settle();
    expect(receiver.received).toHaveLength(1);
    expect(await deliveryOf(deliveryId)).toMatchObject({ attempts: 1, responseCode: 410 });
  });

  it('refuses a test for an ICCID that is not on the account', async () => {
    const res = await h.control('POST', '/_sandbox/voice-quality/tests', { iccid: '0000' });
    expect(res.status).toBe(404);
  });
});
