import { describe, expect, it } from 'vitest';
import { settle, signatureMatches, useHarness, useReceivers, waitFor } from './helpers.js';

const h = useHarness();
const receiver = useReceivers();

const telstra = { operator: 'Telstra', network: 'Telstra 4G' };

async function register(body: Record<string, unknown>): Promise<{ id: string; signingSecret: string }> {
  const res = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, ...body });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function deliveries(query = ''): Promise<any[]> {
  const res = await h.api('GET', `/api/v1.1/webhook-deliveries${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function attemptsOf(deliveryId: string): Promise<number> {
  return (await deliveries()).find((d) => d.deliveryId === deliveryId)?.attempt ?? -1;
}

describe('test deliveries', () => {
  it('goes to the first configured URL in the order messageUrl, callbackMessageUrl, voiceUrl, callbackVoiceUrl', async () => {
    const callback = await receiver();
    const voice = await receiver();
    const stream = await receiver();
    const { id, signingSecret } = await register({
      eventType: 'both',
      webhookUrls: { voiceUrl: `${voice.url}/v`, callbackMessageUrl: `${callback.url}/c`, voiceStreamUrl: stream.url },
    });
    const res = await h.api('POST', `/api/v1.1/webhooks/${id}/test`, { eventType: 'webhook.test' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ webhookId: id, eventType: 'webhook.test', status: 'DELIVERED', responseCode: 200, attempt: 1 });
    expect(callback.received).toHaveLength(1);
    expect(voice.received).toHaveLength(0);
    expect(stream.received).toHaveLength(0);
    const [request] = callback.received;
    expect(request?.path).toBe('/c');
    expect(signatureMatches(request!.rawBody, request!.headers['x-service-signature'], signingSecret)).toBe(true);
    expect(JSON.parse(request!.rawBody)).toMatchObject({ event: 'webhook.test', webhookId: id, ...telstra });

    const { id: voiceOnly } = await register({
      operator: 'Optus',
      network: 'Optus 4G',
      eventType: 'voice',
      webhookUrls: { callbackVoiceUrl: `${voice.url}/cv`, voiceStreamUrl: stream.url },
    });
    expect((await h.api('POST', `/api/v1.1/webhooks/${voiceOnly}/test`, { eventType: 'webhook.test' })).status).toBe(200);
    expect(voice.received.map((r) => r.path)).toEqual(['/cv']);
  });

  it('answers 502 DELIVERY_FAILED without details when the endpoint fails, makes one attempt and records it', async () => {
    const failing = await receiver([500]);
    const { id } = await register({ eventType: 'sms', webhookUrls: { messageUrl: failing.url } });
    const res = await h.api('POST', `/api/v1.1/webhooks/${id}/test`, { eventType: 'webhook.test' });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('DELIVERY_FAILED');
    expect(res.body.error).not.toHaveProperty('details');
    await h.advance(3_600_000);
    await settle();
    expect(failing.received).toHaveLength(1);
    const [record] = await deliveries(`?webhookId=${id}`);
    expect(record).toMatchObject({ eventType: 'webhook.test', status: 'FAILED', responseCode: 500, attempt: 1 });
  });

  it('does not count failed tests toward suspension', async () => {
    const failing = await receiver([503]);
    const { id } = await register({ eventType: 'sms', webhookUrls: { messageUrl: failing.url } });
    for (let i = 0; i < 12; i++) {
      expect((await h.api('POST', `/api/v1.1/webhooks/${id}/test`, { eventType: 'webhook.test' })).status).toBe(502);
    }
    expect((await h.api('GET', `/api/v1.1/webhooks/${id}`)).body.data.status).toBe('active');
  });
});

describe('inbound event deliveries', () => {
  it('keeps many retry series waiting at once without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const failing = await receiver([500]);
      await register({ eventType: 'sms', webhookUrls: { messageUrl: failing.url } });
      // Each failed delivery waits for its retry on the sandbox's one close signal.
      for (let i = 0; i < 12; i++) await h.control('POST', '/_sandbox/events/sms', telstra);
      await waitFor(() => failing.received.length >= 12, 'twelve first attempts');
      await settle();
      expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('signs each SMS delivery per part 6 and presents the bearer credential', async () => {
    const sink = await receiver();
    const { id, signingSecret } = await register({
      eventType: 'sms',
      authentication: { type: 'bearer', token: 'receiver-token' },
      webhookUrls: { messageUrl: `${sink.url}/sms` },
    });
    const sent = await h.control('POST', '/_sandbox/events/sms', {
      ...telstra,
      from: '+61400000001',
      to: '+61400000002',
      text: 'hello',
    });
    expect(sent.status).toBe(202);
    expect(sent.body.deliveries).toEqual([{ deliveryId: expect.any(String), webhookId: id, target: 'messageUrl' }]);
    await waitFor(() => sink.received.length === 1, 'the SMS delivery');
    const [request] = sink.received;
    const headers = request!.headers;
    expect(headers['content-type']).toBe('application/json');
    expect(headers.authorization).toBe('Bearer receiver-token');
    expect(headers['x-service-signature']).toBe(
      `t=${headers['x-service-timestamp'] as string},v1=${(headers['x-service-signature'] as string).split('v1=')[1]}`,
    );
    expect(signatureMatches(request!.rawBody, headers['x-service-signature'], signingSecret)).toBe(true);
    expect(signatureMatches(`${request!.rawBody} `, headers['x-service-signature'], signingSecret)).toBe(false);
    expect(JSON.parse(request!.rawBody)).toEqual({
      event: 'sms.received',
      messageId: expect.stringMatching(/^msg_/),
      ...telstra,
      from: '+61400000001',
      to: '+61400000002',
      text: 'hello',
      receivedAt: expect.any(String),
    });
    await waitFor(async () => (await deliveries())[0]?.status === 'DELIVERED', 'the DELIVERED record');
    const [record] = await deliveries();
    expect(record).toEqual({
      deliveryId: sent.body.deliveries[0].deliveryId,
      webhookId: id,
      eventType: 'sms.received',
      status: 'DELIVERED',
      responseCode: 200,
      attempt: 1,
      deliveredAt: expect.any(String),
      createdAt: expect.any(String),
    });
  });

  it('presents basic and api_key credentials as documented', async () => {
    const sink = await receiver();
    await register({
      eventType: 'voice',
      authentication: { type: 'basic', username: 'u', password: 'p' },
      webhookUrls: { voiceUrl: sink.url },
    });
    await register({
      operator: 'Optus',
      network: 'Optus 4G',
      eventType: 'voice',
      authentication: { type: 'api_key', key: 'k-1' },
      webhookUrls: { voiceUrl: sink.url },
    });
    await h.control('POST', '/_sandbox/events/voice', { ...telstra, to: '+61400000009' });
    await h.control('POST', '/_sandbox/events/voice', { operator: 'Optus', network: 'Optus 4G', to: '+61400000009' });
    await waitFor(() => sink.received.length === 2, 'both voice deliveries');
    const byOperator = Object.fromEntries(sink.received.map((r) => [JSON.parse(r.rawBody).operator, r.headers]));
    expect(byOperator.Telstra?.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(byOperator.Optus?.['x-api-key']).toBe('k-1');
    expect(byOperator.Optus?.authorization).toBeUndefined();
  });

  it('delivers only to active registrations of that operator and network whose eventType covers the event', async () => {
    const sink = await receiver();
    const urls = { messageUrl: `${sink.url}/m`, callbackMessageUrl: `${sink.url}/cm`, voiceUrl: `${sink.url}/v`, callbackVoiceUrl: `${sink.url}/cv` };
    await register({ eventType: 'sms', webhookUrls: urls });
    await register({ network: 'Telstra 5G', eventType: 'voice', webhookUrls: urls });
    await register({ operator: 'Optus', network: 'Optus 4G', eventType: 'both', webhookUrls: urls, status: 'suspended' });
    await h.control('POST', '/_sandbox/events/sms', telstra);
    await h.control('POST', '/_sandbox/events/sms', { operator: 'Telstra', network: 'Telstra 5G' });
    await h.control('POST', '/_sandbox/events/sms', { operator: 'Optus', network: 'Optus 4G' });
    await h.control('POST', '/_sandbox/events/voice', { operator: 'Telstra', network: 'Telstra 5G', to: '+61400000009' });
    await waitFor(() => sink.received.length === 4, 'four deliveries');
    await settle();
    expect(sink.received.map((r) => `${r.path} ${JSON.parse(r.rawBody).event}`).sort()).toEqual([
      '/cm sms.received',
      '/cv voice.call',
      '/m sms.received',
      '/v voice.call',
    ]);
  });
});

describe('voice events and the plan of the line', () => {
  it('delivers voice events only for lines whose plan includes voice (spec part 4, registration rule 1)', async () => {
    const { noVoiceIccid, voiceIccid } = h.sandbox.fixtures;
    const lineOf = async (iccid: string) =>
      (await h.api('GET', `/api/v1.1/sims?search=${iccid}`)).body.data.find((sim: { iccid: string }) => sim.iccid === iccid) as {
        operator: string;
        network: string;
        phoneNumber: string;
      };
    const mute = await lineOf(noVoiceIccid);
    const voiced = await lineOf(voiceIccid);
    expect([voiced.operator, voiced.network]).toEqual([mute.operator, mute.network]);
    const sink = await receiver();
    await register({ operator: mute.operator, network: mute.network, eventType: 'voice', webhookUrls: { voiceUrl: sink.url } });
    const line = { operator: mute.operator, network: mute.network };
    const skipped = await h.control('POST', '/_sandbox/events/voice', { ...line, to: mute.phoneNumber });
    expect(skipped.body).toMatchObject({ deliveries: [], skipped: expect.any(String) });
    const sent = await h.control('POST', '/_sandbox/events/voice', { ...line, to: voiced.phoneNumber });
    expect(sent.body.deliveries).toHaveLength(1);
    await waitFor(() => sink.received.length === 1, 'the voice delivery');
    await settle();
    expect(JSON.parse(sink.received[0]!.rawBody).to).toBe(voiced.phoneNumber);
    expect(sink.received).toHaveLength(1);
  });
});

describe('retry schedules on the sandbox clock', () => {
  async function expectRetryAfter(deliveryId: string, delayMs: number, attemptsBefore: number): Promise<void> {
    await h.advance(delayMs - 1);
    await settle();
    expect(await attemptsOf(deliveryId)).toBe(attemptsBefore);
    await h.advance(1);
    await waitFor(async () => (await attemptsOf(deliveryId)) === attemptsBefore + 1, `attempt ${attemptsBefore + 1}`);
  }

  const cases = [
    { backoffStrategy: 'fixed', gapsSeconds: [7, 7, 7] },
    { backoffStrategy: 'linear', gapsSeconds: [7, 14, 21] },
    { backoffStrategy: 'exponential', gapsSeconds: [7, 14, 28] },
  ] as const;

  for (const { backoffStrategy, gapsSeconds } of cases) {
    it(`retries a failing delivery ${backoffStrategy} (${gapsSeconds.join(' s, ')} s), maxAttempts retries after the first`, async () => {
      const failing = await receiver([500]);
      await register({
        eventType: 'sms',
        webhookUrls: { messageUrl: failing.url },
        retryPolicy: { maxAttempts: 3, backoffStrategy, initialDelaySeconds: 7, maxDelaySeconds: 60 },
      });
      const sent = await h.control('POST', '/_sandbox/events/sms', telstra);
      const deliveryId: string = sent.body.deliveries[0].deliveryId;
      await waitFor(async () => (await attemptsOf(deliveryId)) === 1, 'the first attempt');
      for (const [i, gap] of gapsSeconds.entries()) await expectRetryAfter(deliveryId, gap * 1000, i + 1);
      await h.advance(3_600_000);
      await settle();
      expect(failing.received).toHaveLength(4);
      const [record] = await deliveries();
      expect(record).toMatchObject({ status: 'FAILED', attempt: 4, responseCode: 500 });
      const bodies = new Set(failing.received.map((r) => r.rawBody));
      expect(bodies.size).toBe(1);
    });
  }

  it('caps every delay at maxDelaySeconds', async () => {
    const failing = await receiver([500]);
    await register({
      eventType: 'sms',
      webhookUrls: { messageUrl: failing.url },
      retryPolicy: { maxAttempts: 3, backoffStrategy: 'exponential', initialDelaySeconds: 40, maxDelaySeconds: 60 },
    });
    const sent = await h.control('POST', '/_sandbox/events/sms', telstra);
    const deliveryId: string = sent.body.deliveries[0].deliveryId;
    await waitFor(async () => (await attemptsOf(deliveryId)) === 1, 'the first attempt');
    await expectRetryAfter(deliveryId, 40_000, 1);
    await expectRetryAfter(deliveryId, 60_000, 2);
    await expectRetryAfter(deliveryId, 60_000, 3);
  });

  it('stops retrying once an attempt answers 2xx', async () => {
    const flaky = await receiver([500, 502, 204]);
    await register({ eventType: 'sms', webhookUrls: { messageUrl: flaky.url }, retryPolicy: { backoffStrategy: 'fixed', initialDelaySeconds: 1 } });
    const sent = await h.control('POST', '/_sandbox/events/sms', telstra);
    const deliveryId: string = sent.body.deliveries[0].deliveryId;
    for (let attempt = 1; attempt <= 3; attempt++) {
      await waitFor(async () => (await attemptsOf(deliveryId)) === attempt, `attempt ${attempt}`);
      await h.advance(1000);
    }
    await settle();
    expect(flaky.received).toHaveLength(3);
    expect((await deliveries())[0]).toMatchObject({ status: 'DELIVERED', attempt: 3, responseCode: 204 });
  });
});

describe('GET /api/v1.1/webhook-deliveries pages (spec part 1 rule 5, part 8)', () => {
  it('answers newest-first pages with page, pageSize, total and totalPages in meta', async () => {
    const { id } = await register({ eventType: 'sms', webhookUrls: { messageUrl: 'https://receiver.invalid/m' } });
    for (let i = 0; i < 25; i++) {
      const sent = await h.control('POST', '/_sandbox/events/sms', { ...telstra, text: `n${i}` });
      expect(sent.status).toBe(202);
    }
    const first = await h.api('GET', `/api/v1.1/webhook-deliveries?webhookId=${id}`);
    expect(first.body.data).toHaveLength(20);
    expect(first.body.meta).toEqual({ page: 1, pageSize: 20, total: 25, totalPages: 2 });
    const second = await h.api('GET', `/api/v1.1/webhook-deliveries?webhookId=${id}&page=2&pageSize=10`);
    expect(second.body.meta).toEqual({ page: 2, pageSize: 10, total: 25, totalPages: 3 });
    expect(second.body.data.map((d: { deliveryId: string }) => d.deliveryId)).toEqual(
      first.body.data.slice(10, 20).map((d: { deliveryId: string }) => d.deliveryId),
    );
    const past = await h.api('GET', `/api/v1.1/webhook-deliveries?page=9&pageSize=10`);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.total).toBe(25);
  });

  it('answers 400 VALIDATION_ERROR for pageSize above 100 or below 1 and for page 0', async () => {
    for (const query of ['pageSize=101', 'pageSize=0', 'page=0', 'page=abc']) {
      const res = await h.api('GET', `/api/v1.1/webhook-deliveries?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.validationErrors).toHaveLength(1);
    }
    const max = await h.api('GET', '/api/v1.1/webhook-deliveries?pageSize=100');
    expect(max.status).toBe(200);
    expect(max.body.meta).toEqual({ page: 1, pageSize: 100, total: 0, totalPages: 0 });
  });
});
