import { describe, expect, it } from 'vitest';
import { ConnectionError, InternalServerError, InvalidResponseError, PartnerClient, TimeoutError } from '../../src/index.js';
import { fail, ok } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 2 });

const PROVISION = 'POST /api/v1.1/esim';
const CANCEL = 'POST /api/v1.1/subscriptions/8901/cancel';
const TX = { transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' };
const accepted = { status: 202, json: { success: true, data: TX } };
const MAY_HAVE_APPLIED = /may have been applied/;

const provision = (options = {}) => t.client.esim.provision({ planId: 'p' }, options);

describe('asynchronous writes (no idempotency promise in the spec)', () => {
  it('are not retried after a 5xx, and the error says the write may have been applied', async () => {
    t.server.on(PROVISION, [fail(500, 'INTERNAL_ERROR'), accepted]);
    const error = await provision().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ mayHaveSucceeded: true });
    expect((error as Error).message).toMatch(MAY_HAVE_APPLIED);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ mayHaveSucceeded: true });
    const sent = t.server.requestsTo(PROVISION);
    expect(sent).toHaveLength(1);
    // A generated key still goes along: harmless, and it helps a server that honours it.
    expect(sent[0]?.headers['idempotency-key']).toEqual(expect.any(String));
  });

  it('are not retried after a timeout', async () => {
    t.server.on(PROVISION, [{ hang: true }, accepted]);
    const error = await provision({ timeoutMs: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveSucceeded: true });
    expect((error as Error).message).toMatch(MAY_HAVE_APPLIED);
    expect(t.server.requestsTo(PROVISION)).toHaveLength(1);
  });

  it('are not retried after the connection drops mid-answer', async () => {
    t.server.on(PROVISION, [{ status: 202, raw: JSON.stringify({ success: true, data: TX }), cutAfterBytes: 10 }, accepted]);
    const error = await provision().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveSucceeded: true, requestNotSent: false });
    expect(t.server.requestsTo(PROVISION)).toHaveLength(1);
  });

  it('report a 2xx whose body cannot be read as possibly applied', async () => {
    t.server.on(PROVISION, { status: 202, raw: '<html>accepted</html>' });
    const error = await provision().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ mayHaveSucceeded: true });
  });

  it('are retried after a 429, which turned the request away before it was processed', async () => {
    t.server.on(PROVISION, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '0' } }), accepted]);
    await expect(provision()).resolves.toMatchObject(TX);
    const keys = t.server.requestsTo(PROVISION).map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('are retried when the connection was refused, and a final refusal is not "may have succeeded"', async () => {
    let refusals = 1;
    const refusingFetch: typeof fetch = (input, init) => {
      if (String(input).endsWith('/api/v1.1/esim') && refusals-- > 0) {
        return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }));
      }
      return fetch(input, init);
    };
    t.server.on(PROVISION, accepted);
    const client = await t.connect({ fetch: refusingFetch });
    await expect(client.esim.provision({ planId: 'p' })).resolves.toMatchObject(TX);
    expect(t.server.requestsTo(PROVISION)).toHaveLength(1);

    const closed = t.track(new PartnerClient({ baseUrl: 'http://127.0.0.1:1', key: KEY, secret: SECRET, maxRetries: 0 }));
    const error = await closed.request({ method: 'POST', path: '/api/v1.1/esim', body: {}, auth: false }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ requestNotSent: true, mayHaveSucceeded: false });
  });

  it("are retried with the caller's own key: the caller asserts the route honours it", async () => {
    t.server.on(PROVISION, [fail(503, 'INTERNAL_ERROR'), { hang: true }, accepted]);
    await expect(provision({ idempotencyKey: 'order-77-esim', timeoutMs: 200 })).resolves.toMatchObject(TX);
    const keys = t.server.requestsTo(PROVISION).map((request) => request.headers['idempotency-key']);
    expect(keys).toEqual(['order-77-esim', 'order-77-esim', 'order-77-esim']);
  });
});

describe('writes the spec marks (idem), and reads', () => {
  it('are retried after 5xx and timeouts with one key, and a final failure names that key to send it again with', async () => {
    t.server.on(CANCEL, [{ hang: true }, fail(500, 'INTERNAL_ERROR'), fail(503, 'INTERNAL_ERROR')]);
    const error = await t.client.subscriptions.cancel('8901', { timeoutMs: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    const keys = t.server.requestsTo(CANCEL).map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    // The caller never saw the generated key: the error hands it over, so a resend replays instead of applying twice.
    expect(error).toMatchObject({ mayHaveSucceeded: true, idempotencyKey: keys[0] });
    expect((error as Error).message).toContain(`idempotencyKey '${keys[0]}'`);
  });

  it("with the caller's own key, a final failure names that key, to send it again with", async () => {
    t.server.on(CANCEL, [fail(500, 'INTERNAL_ERROR'), fail(500, 'INTERNAL_ERROR'), fail(503, 'INTERNAL_ERROR')]);
    const error = await t.client.subscriptions.cancel('8901', { idempotencyKey: 'cancel-8901' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 503, mayHaveSucceeded: true, idempotencyKey: 'cancel-8901' });
    expect((error as Error).message).toContain("idempotencyKey 'cancel-8901'");
  });

  it('a read that fails for good carries mayHaveSucceeded: false', async () => {
    t.server.on('GET /api/v1.1/sims/8901/subscription', fail(500, 'INTERNAL_ERROR'));
    const error = await t.client.sims.retrieveSubscription('8901', { maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 500, mayHaveSucceeded: false });
    // A key on a read changes nothing: a read applies nothing.
    const keyed = await t.client.sims.retrieveSubscription('8901', { maxRetries: 0, idempotencyKey: 'read-1' }).catch((caught: unknown) => caught);
    expect(keyed).toMatchObject({ status: 500, mayHaveSucceeded: false });
  });

  it('other writes without a key are not retried after a 5xx either', async () => {
    t.server.on('POST /api/v1.1/thing', [fail(502, 'BAD_GATEWAY'), ok({ done: true })]);
    const error = await t.client.request({ method: 'POST', path: '/api/v1.1/thing', body: {} }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 502, mayHaveSucceeded: true });
    expect(t.server.requestsTo('POST /api/v1.1/thing')).toHaveLength(1);
  });
});
