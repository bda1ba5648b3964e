import { describe, expect, it } from 'vitest';
import { settle, useHarness, useReceivers, waitFor, type Receiver } from './helpers.js';

const h = useHarness();
const receiver = useReceivers();

const telstra = { operator: 'Telstra', network: 'Telstra 4G' };
const noRetries = { maxAttempts: 1, backoffStrategy: 'fixed', initialDelaySeconds: 1 };

async function register(url: string): Promise<string> {
  const res = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'sms', webhookUrls: { messageUrl: url }, retryPolicy: noRetries });
  return res.body.data.id;
}

async function deliveries(query = ''): Promise<any[]> {
  return (await h.api('GET', `/api/v1.1/webhook-deliveries${query}`)).body.data;
}

/** Sends `count` SMS events and lets each delivery (first attempt + its one retry) fail. */
async function failDeliveries(count: number, failing: Receiver): Promise<void> {
  const before = failing.received.length;
  for (let i = 0; i < count; i++) await h.control('POST', '/_sandbox/events/sms', telstra);
  await waitFor(() => failing.received.length === before + count, 'the first attempts');
  await waitFor(async () => (await deliveries('?status=PENDING')).every((d) => d.attempt === 1), 'attempts recorded');
  await h.advance(1000);
  await waitFor(async () => (await deliveries('?status=PENDING')).length === 0, 'the retries to end');
}

describe('suspension', () => {
  it('suspends a registration after 10 consecutive failed deliveries and stops delivering to it', async () => {
    const failing = await receiver([500]);
    const id = await register(failing.url);
    await failDeliveries(9, failing);
    expect((await h.api('GET', `/api/v1.1/webhooks/${id}`)).body.data.status).toBe('active');
    await failDeliveries(1, failing);
    expect((await h.api('GET', `/api/v1.1/webhooks/${id}`)).body.data.status).toBe('suspended');
    expect(failing.received).toHaveLength(20);

    const sent = await h.control('POST', '/_sandbox/events/sms', telstra);
    expect(sent.body.deliveries).toEqual([]);
    await settle();
    expect(failing.received).toHaveLength(20);
  });

  it('counts a delivery as its whole attempt series, and a success resets the run', async () => {
    const flaky = await receiver([500]);
    const id = await register(flaky.url);
    await failDeliveries(9, flaky);
    flaky.answers = [500, 200];
    await failDeliveries(1, flaky);
    expect((await deliveries())[0]).toMatchObject({ status: 'DELIVERED', attempt: 2 });
    flaky.answers = [500];
    await failDeliveries(9, flaky);
    expect((await h.api('GET', `/api/v1.1/webhooks/${id}`)).body.data.status).toBe('active');
  });

  it('is lifted by PUT status active, which also starts a fresh run of failures', async () => {
    const failing = await receiver([500]);
    const id = await register(failing.url);
    await failDeliveries(10, failing);
    const put = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { status: 'active' });
    expect(put.body.data.status).toBe('active');
    await failDeliveries(9, failing);
    expect((await h.api('GET', `/api/v1.1/webhooks/${id}`)).body.data.status).toBe('active');
    await failDeliveries(1, failing);
    expect((await h.api('GET', `/api/v1.1/webhooks/${id}`)).body.data.status).toBe('suspended');
  });
});

describe('delivery log', () => {
  it('lists records newest first, filtered by webhookId and status, metadata only', async () => {
    const ok = await receiver([200]);
    const failing = await receiver([500]);
    const good = await register(ok.url);
    const bad = (
      await h.api('POST', '/api/v1.1/webhooks', {
        operator: 'Optus',
        network: 'Optus 4G',
        eventType: 'sms',
        webhookUrls: { messageUrl: failing.url },
        retryPolicy: noRetries,
      })
    ).body.data.id as string;
    await h.control('POST', '/_sandbox/events/sms', telstra);
    await h.control('POST', '/_sandbox/events/sms', { operator: 'Optus', network: 'Optus 4G' });
    await h.control('POST', '/_sandbox/events/sms', telstra);
    await waitFor(async () => (await deliveries()).filter((d) => d.attempt === 1).length === 3, 'three first attempts');
    await h.advance(1000);
    await waitFor(async () => (await deliveries('?status=PENDING')).length === 0, 'all settled');

    const all = await deliveries();
    expect(all).toHaveLength(3);
    expect(all.map((d) => d.webhookId)).toEqual([good, bad, good]);
    expect((await deliveries(`?webhookId=${good}`)).every((d) => d.status === 'DELIVERED')).toBe(true);
    expect(await deliveries('?status=FAILED')).toEqual([expect.objectContaining({ webhookId: bad, attempt: 2, responseCode: 500 })]);
    for (const record of all) {
      expect(Object.keys(record).sort()).toEqual([
        'attempt',
        'createdAt',
        'deliveredAt',
        'deliveryId',
        'eventType',
        'responseCode',
        'status',
        'webhookId',
      ]);
    }
    // The status filter is open (spec part 4: "for example FAILED"): one never recorded matches nothing.
    expect(await deliveries('?status=LOST')).toEqual([]);
    expect(await deliveries('?status=failed')).toEqual([]);
    const empty = await h.api('GET', '/api/v1.1/webhook-deliveries?status=');
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('POST /api/v1.1/webhook-deliveries/{deliveryId}/redeliver', () => {
  it('answers 202 with a new PENDING record, resends the same body to the same endpoint, and 409 while it runs', async () => {
    const sink = await receiver([200]);
    await register(`${sink.url}/inbound`);
    const sent = await h.control('POST', '/_sandbox/events/sms', { ...telstra, text: 'once more' });
    const original: string = sent.body.deliveries[0].deliveryId;
    await waitFor(async () => (await deliveries())[0]?.status === 'DELIVERED', 'the original delivery');

    let release = (): void => undefined;
    sink.hold = new Promise((resolve) => {
      release = resolve;
    });
    const first = await h.api('POST', `/api/v1.1/webhook-deliveries/${original}/redeliver`);
    expect(first.status).toBe(202);
    expect(first.body.data).toMatchObject({ status: 'PENDING', eventType: 'sms.received', attempt: 0 });
    expect(first.body.data.deliveryId).not.toBe(original);

    await waitFor(() => sink.received.length === 2, 'the redelivery to arrive');
    const second = await h.api('POST', `/api/v1.1/webhook-deliveries/${original}/redeliver`);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('DELIVERY_ALREADY_IN_PROGRESS');
    const viaCopy = await h.api('POST', `/api/v1.1/webhook-deliveries/${first.body.data.deliveryId}/redeliver`);
    expect(viaCopy.status).toBe(409);

    sink.hold = null;
    release();
    await waitFor(async () => (await deliveries('?status=PENDING')).length === 0, 'the redelivery to finish');
    expect(sink.received[1]?.path).toBe('/inbound');
    expect(sink.received[1]?.rawBody).toBe(sink.received[0]?.rawBody);
    expect(await deliveries()).toHaveLength(2);
    expect((await h.api('POST', `/api/v1.1/webhook-deliveries/${original}/redeliver`)).status).toBe(202);
  });

  it('answers 409 while the original delivery is still retrying', async () => {
    const failing = await receiver([500]);
    await register(failing.url);
    const sent = await h.control('POST', '/_sandbox/events/sms', telstra);
    await waitFor(() => failing.received.length === 1, 'the first attempt');
    const res = await h.api('POST', `/api/v1.1/webhook-deliveries/${sent.body.deliveries[0].deliveryId}/redeliver`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('DELIVERY_ALREADY_IN_PROGRESS');
  });

  it('answers 404 DELIVERY_NOT_FOUND for an unknown delivery', async () => {
    const res = await h.api('POST', '/api/v1.1/webhook-deliveries/dlv_missing/redeliver');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('DELIVERY_NOT_FOUND');
  });
});
