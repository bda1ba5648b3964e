import { describe, expect, it } from 'vitest';
import { callEndpoint, ENDPOINTS, prepareIds } from './endpoints.js';
import { call, useSandbox } from './helpers.js';

const s = useSandbox({}, { resetEach: true });

const stats = s.counters;

describe('Idempotency-Key', () => {
  it('replays the original answer verbatim with Idempotency-Replayed, and the side effect happens once', async () => {
    const body = { fromNumber: s.sandbox.fixtures.phoneNumber, toNumber: '+14155550100', text: 'once' };
    const headers = { 'idempotency-key': 'sms-1' };
    const first = await call(s.sandbox, 'POST', '/api/v1.1/sms', { token: s.token, body, headers });
    const second = await call(s.sandbox, 'POST', '/api/v1.1/sms', { token: s.token, body, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await stats())['sms.sent']).toBe(1);
  });

  it('replays a 409 answer too, and re-runs a write whose first attempt failed with 500', async () => {
    const iccid = s.sandbox.fixtures.activeSubscriptionIccid;
    const cancel = (key: string) =>
      call(s.sandbox, 'POST', `/api/v1.1/subscriptions/${iccid}/cancel`, { token: s.token, headers: { 'idempotency-key': key } });
    await call(s.sandbox, 'POST', '/_sandbox/force', { body: { method: 'POST', path: '/api/v1.1/subscriptions/{iccid}/cancel', status: 500 } });
    expect((await cancel('c-1')).status).toBe(500);
    const retried = await cancel('c-1');
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotency-replayed')).toBeNull();
    expect((await cancel('c-1')).headers.get('idempotency-replayed')).toBe('true');
    expect((await stats())['subscriptions.cancel']).toBe(1);
    const conflict = await cancel('c-2');
    expect(conflict.status).toBe(409);
    const replayed = await cancel('c-2');
    expect([replayed.status, replayed.headers.get('idempotency-replayed')]).toEqual([409, 'true']);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for a different body or a different route', async () => {
    const headers = { 'idempotency-key': 'reuse-1' };
    const { physicalIccid } = s.sandbox.fixtures;
    await call(s.sandbox, 'POST', '/api/v1.1/top-up', { token: s.token, body: { amount: 10 }, headers });
    const otherBody = await call(s.sandbox, 'POST', '/api/v1.1/top-up', { token: s.token, body: { amount: 11 }, headers });
    expect([otherBody.status, otherBody.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    const otherRoute = await call(s.sandbox, 'POST', `/api/v1.1/sims/${physicalIccid}/renew-number`, { token: s.token, headers });
    expect([otherRoute.status, otherRoute.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    // Key order in the JSON body does not make it a different body.
    const a = await call(s.sandbox, 'POST', '/api/v3/plans/purchase', {
      token: s.token,
      body: { iccid: physicalIccid, planId: 'Business 5GB' },
      headers: { 'idempotency-key': 'order-1' },
    });
    const b = await call(s.sandbox, 'POST', '/api/v3/plans/purchase', {
      token: s.token,
      body: { planId: 'Business 5GB', iccid: physicalIccid },
      headers: { 'idempotency-key': 'order-1' },
    });
    expect(b.headers.get('idempotency-replayed')).toBe('true');
    expect(b.body.data.transactionId).toBe(a.body.data.transactionId);
    expect((await stats())['plans.purchaseAsync']).toBe(1);
  });

  it('answers 409 CONFLICT while the original request is still in flight', async () => {
    await call(s.sandbox, 'POST', '/_sandbox/force', { body: { method: 'POST', path: '/api/v1.1/esim', delayMs: 400 } });
    const headers = { 'idempotency-key': 'slow-1' };
    const original = call(s.sandbox, 'POST', '/api/v1.1/esim', { token: s.token, body: {}, headers });
    await new Promise((r) => setTimeout(r, 100));
    const concurrent = await call(s.sandbox, 'POST', '/api/v1.1/esim', { token: s.token, body: {}, headers });
    expect([concurrent.status, concurrent.body.error.code]).toEqual([409, 'CONFLICT']);
    expect((await original).status).toBe(202);
    const replay = await call(s.sandbox, 'POST', '/api/v1.1/esim', { token: s.token, body: {}, headers });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect((await stats())['esim.provision']).toBe(1);
  });
});

describe('Idempotency-Key on every (idem) route of spec part 4 and every async write', () => {
  const writes = ENDPOINTS.filter((e) => e.idempotent !== undefined);

  it.each(writes.map((e) => [`${e.method} ${e.template}`, e] as const))('%s replays its first answer and runs once', async (_name, endpoint) => {
    const ids = await prepareIds(s);
    const headers = { 'idempotency-key': `key-${endpoint.template}` };
    const before = (await stats())[endpoint.idempotent!] ?? 0;
    const first = await callEndpoint(s, endpoint, ids, s.token, headers);
    const second = await callEndpoint(s, endpoint, ids, s.token, headers);
    expect(first.status).toBe(endpoint.status);
    expect([second.status, second.headers.get('idempotency-replayed')]).toEqual([endpoint.status, 'true']);
    expect(second.body).toEqual(first.body);
    expect((await stats())[endpoint.idempotent!]).toBe(before + 1);
  });

  it('covers the four (idem) routes and the four async writes', () => {
    expect(writes.map((e) => e.template).sort()).toEqual([
      '/api/v1.1/devices/{imei}/assign',
      '/api/v1.1/esim',
      '/api/v1.1/sms',
      '/api/v1.1/subscriptions/{iccid}/cancel',
      '/api/v1.1/top-up',
      '/api/v1.1/user-groups/{name}',
      '/api/v3/plans/purchase',
      '/api/v3/port-in',
    ]);
  });
});

describe('Idempotency-Key lifetime and memory bound', () => {
  const send = (key: string, text: string) =>
    call(s.sandbox, 'POST', '/api/v1.1/sms', {
      token: s.token,
      body: { fromNumber: s.sandbox.fixtures.phoneNumber, toNumber: '+14155550100', text },
      headers: { 'idempotency-key': key },
    });
  const advance = async (ms: number) => expect((await call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: ms } })).status).toBe(200);

  it('replays a key for 24 h of sandbox time, then runs the write again', async () => {
    expect((await send('day-1', 'a')).headers.get('idempotency-replayed')).toBeNull();
    await advance(24 * 3600_000 - 1000);
    s.token = (
      await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: s.sandbox.key, secret: s.sandbox.secret } })
    ).body.data.access_token;
    expect((await send('day-1', 'a')).headers.get('idempotency-replayed')).toBe('true');
    await advance(1000);
    const after = await send('day-1', 'a');
    expect([after.status, after.headers.get('idempotency-replayed')]).toEqual([201, null]);
    // An expired key is a fresh key: even a different body is no longer a reuse.
    await advance(24 * 3600_000);
    s.token = (
      await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: s.sandbox.key, secret: s.sandbox.secret } })
    ).body.data.access_token;
    expect((await send('day-1', 'b')).status).toBe(201);
    expect((await stats())['sms.sent']).toBe(3);
    expect((await stats())['idempotency.expired']).toBe(2);
  });
});
