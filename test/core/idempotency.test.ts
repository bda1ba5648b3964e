import { describe, expect, it } from 'vitest';
import { fail, ok } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';

const CANCEL = 'POST /api/v1.1/subscriptions/8901/cancel';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const t = useTestServer();

const cancel = (idempotencyKey?: string) =>
  t.client.request({
    method: 'POST',
    path: '/api/v1.1/subscriptions/8901/cancel',
    idempotent: true,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });

describe('Idempotency-Key', () => {
  it('generates a UUID for idempotent routes and sends the same key on every retry', async () => {
    t.server.on(CANCEL, [fail(500, 'INTERNAL_ERROR'), fail(503, 'INTERNAL_ERROR'), ok({ cancelled: true })]);
    await cancel();
    const keys = t.server.requestsTo(CANCEL).map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys).size).toBe(1);
  });

  it('sends the same key on the replay after a 401', async () => {
    t.server.on(CANCEL, [fail(401, 'UNAUTHORIZED'), ok({ cancelled: true })]);
    await cancel();
    const keys = t.server.requestsTo(CANCEL).map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('uses a fresh key for each call', async () => {
    t.server.on(CANCEL, ok({ cancelled: true }));
    await cancel();
    await cancel();
    const [first, second] = t.server.requestsTo(CANCEL).map((request) => request.headers['idempotency-key']);
    expect(first).not.toBe(second);
  });

  it("sends the caller's key instead of generating one", async () => {
    t.server.on(CANCEL, ok({ cancelled: true }));
    await cancel('order-42-cancel');
    expect(t.server.requestsTo(CANCEL)[0]?.headers['idempotency-key']).toBe('order-42-cancel');
  });

  it('makes any write retryable when the caller gives a key', async () => {
    t.server.on('POST /api/v1.1/thing', [fail(500, 'INTERNAL_ERROR'), ok({ done: true })]);
    await t.client.request({ method: 'POST', path: '/api/v1.1/thing', body: {}, idempotencyKey: 'thing-1' });
    const requests = t.server.requestsTo('POST /api/v1.1/thing');
    expect(requests.map((request) => request.headers['idempotency-key'])).toEqual(['thing-1', 'thing-1']);
  });

  it('sends no key on writes that do not support one', async () => {
    t.server.on('POST /api/v1.1/thing', ok({ done: true }));
    await t.client.request({ method: 'POST', path: '/api/v1.1/thing', body: {} });
    expect(t.server.requestsTo('POST /api/v1.1/thing')[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('reports a replayed answer as idempotencyReplayed', async () => {
    t.server.on(CANCEL, [ok({ cancelled: true }), ok({ cancelled: true }, { headers: { 'idempotency-replayed': 'true' } })]);
    const first = await cancel('same').withResponse();
    const second = await cancel('same').withResponse();
    expect(first.response.idempotencyReplayed).toBe(false);
    expect(second.response.idempotencyReplayed).toBe(true);
  });
});
