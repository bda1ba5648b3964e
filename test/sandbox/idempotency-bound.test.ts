import { describe, expect, it } from 'vitest';
import { call, useSandbox } from './helpers.js';

const s = useSandbox({ limits: { maxIdempotencyKeys: 3 } });

describe('Idempotency-Key memory bound (limits.maxIdempotencyKeys)', () => {
  const send = (key: string) =>
    call(s.sandbox, 'POST', '/api/v1.1/sms', {
      token: s.token,
      body: { fromNumber: s.sandbox.fixtures.phoneNumber, toNumber: '+14155550100', text: key },
      headers: { 'idempotency-key': key },
    });
  const stats = async () => (await s.control('GET', '/_sandbox/stats')).body;

  it('keeps at most N keys, forgetting the oldest first', async () => {
    for (const key of ['k1', 'k2', 'k3', 'k4']) expect((await send(key)).status).toBe(201);
    expect((await stats()).idempotencyKeys).toBe(3);
    expect((await send('k2')).headers.get('idempotency-replayed')).toBe('true');
    expect((await send('k4')).headers.get('idempotency-replayed')).toBe('true');
    // k1 was evicted when k4 came in: it runs again, and takes the place of the now-oldest k2.
    expect((await send('k1')).headers.get('idempotency-replayed')).toBeNull();
    expect((await send('k2')).headers.get('idempotency-replayed')).toBeNull();
    const after = await stats();
    expect(after.idempotencyKeys).toBe(3);
    expect(after.counters['sms.sent']).toBe(6);
    expect(after.counters['idempotency.evicted']).toBe(3);
  });
});
