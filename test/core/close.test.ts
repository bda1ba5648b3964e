/**
 * close() is graceful (calls already started finish; new ones are refused; a timeout cuts the
 * rest) and destroy() cuts every call at once; both end with ClientClosedError and release
 * every resource.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientClosedError, RequestValidationError } from '../../src/index.js';
import { type Reply, fail, ok } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';

const THING = 'GET /api/v1.1/thing';
const t = useTestServer();

const getThing = (options: { maxRetries?: number } = {}) => t.client.request({ method: 'GET', path: '/api/v1.1/thing', ...options });
const settle = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => error,
  );

async function sent(route: string, count = 1): Promise<void> {
  while (t.server.requestsTo(route).length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A reply held until the test releases it. */
function held(): { responder: () => Promise<Reply>; release: (reply: Reply) => void } {
  let release: (reply: Reply) => void = () => {};
  const answer = new Promise<Reply>((resolve) => {
    release = resolve;
  });
  return { responder: () => answer, release };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('close()', () => {
  it('lets a call in flight finish, then resolves', async () => {
    const answer = held();
    t.server.on(THING, answer.responder);
    const call = getThing();
    await sent(THING);
    let closed = false;
    const closing = t.client.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false);
    answer.release(ok({ done: true }));
    await expect(call).resolves.toEqual({ done: true });
    await closing;
    expect(closed).toBe(true);
  });

  it('lets a call in its backoff retry and succeed', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    t.server.on(THING, [fail(503, 'INTERNAL_ERROR'), ok(2)]);
    const call = getThing();
    await sent(THING);
    const closing = t.client.close();
    await expect(call).resolves.toBe(2);
    await closing;
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });

  it('refuses a call made after close() with ClientClosedError and sends nothing', async () => {
    t.server.on(THING, ok(1));
    await getThing();
    const before = t.server.requests.length;
    await t.client.close();
    const error = await settle(getThing());
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toMatchObject({ code: 'CLIENT_CLOSED', requestNotSent: true, message: 'GET /api/v1.1/thing: the client is closed' });
    await expect(t.client.auth.token()).rejects.toBeInstanceOf(ClientClosedError);
    expect(t.server.requests).toHaveLength(before);
  });

  it('refuses new calls while it waits for the ones started', async () => {
    const answer = held();
    t.server.on(THING, answer.responder);
    const call = getThing();
    await sent(THING);
    const closing = t.client.close();
    await expect(getThing()).rejects.toBeInstanceOf(ClientClosedError);
    answer.release(ok(1));
    await expect(call).resolves.toBe(1);
    await closing;
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('cuts a hung call with ClientClosedError once timeoutMs has passed', async () => {
    t.server.on(THING, { hang: true });
    await t.connect({ timeoutMs: 60_000 });
    const call = settle(getThing());
    await sent(THING);
    await t.client.close({ timeoutMs: 50 });
    const error = await call;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toMatchObject({ code: 'CLIENT_CLOSED', requestNotSent: false });
    expect((error as Error).message).toBe(
      'GET /api/v1.1/thing: the client was closed and its 50 ms close timeout passed while its request was in flight',
    );
  });

  it('keeps the close timeout as the reason of a call it cut, when destroy() follows at once', async () => {
    t.server.on(THING, { hang: true });
    await t.connect({ timeoutMs: 60_000 });
    const call = settle(getThing());
    await sent(THING);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const closing = t.client.close({ timeoutMs: 50 });
    vi.advanceTimersByTime(50);
    const destroying = t.client.destroy();
    vi.useRealTimers();
    await Promise.all([closing, destroying]);
    expect((await call) as Error).toMatchObject({
      message: 'GET /api/v1.1/thing: the client was closed and its 50 ms close timeout passed while its request was in flight',
    });
  });

  it.each([0, -1, 1.5, '100', Number.POSITIVE_INFINITY])('refuses timeoutMs %o with a RequestValidationError', async (timeoutMs) => {
    const error = await settle(t.client.close({ timeoutMs } as { timeoutMs: number }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.path).toBe('timeoutMs');
  });

  it('is idempotent', async () => {
    t.server.on(THING, ok(1));
    await getThing();
    const first = t.client.close();
    expect(t.client.close()).toBe(first);
    await first;
    await expect(t.client.close()).resolves.toBeUndefined();
    await expect(t.client.destroy()).resolves.toBeUndefined();
  });
});

describe('destroy()', () => {
  it('cuts a call in flight at once', async () => {
    t.server.on(THING, { hang: true });
    await t.connect({ timeoutMs: 60_000 });
    const call = settle(getThing());
    await sent(THING);
    await t.client.destroy();
    const error = await call;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect((error as Error).message).toBe('GET /api/v1.1/thing: the client was destroyed while its request was in flight');
  });

  it('cuts a call in flight with no retry left with ClientClosedError too', async () => {
    t.server.on(THING, { hang: true });
    await t.connect({ timeoutMs: 60_000 });
    const call = settle(getThing({ maxRetries: 0 }));
    await sent(THING);
    await t.client.destroy();
    expect(await call).toBeInstanceOf(ClientClosedError);
  });

  it('cuts a call waiting out a Retry-After, without sending it again', async () => {
    t.server.on(THING, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '30' } }));
    const call = settle(getThing());
    await sent(THING);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await t.client.destroy();
    const error = await call;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect((error as Error).message).toBe('GET /api/v1.1/thing: the client was destroyed before the call finished');
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it("cuts a call waiting in the rate limiter's queue; it is never sent", async () => {
    t.server.on(THING, ok(1));
    await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 } } });
    await getThing();
    const queued = settle(getThing());
    await new Promise((resolve) => setTimeout(resolve, 30));
    await t.client.destroy();
    const error = await queued;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toMatchObject({ requestNotSent: true });
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('cuts the calls a pending close() still waits for, and both resolve', async () => {
    t.server.on(THING, { hang: true });
    await t.connect({ timeoutMs: 60_000 });
    const call = settle(getThing());
    await sent(THING);
    const closing = t.client.close();
    const destroying = t.client.destroy();
    expect(t.client.destroy()).toBe(destroying);
    await Promise.all([closing, destroying]);
    expect(await call).toBeInstanceOf(ClientClosedError);
  });

  it('marks a cut write that had left as possibly applied', async () => {
    t.server.on('POST /api/v1.1/thing', { hang: true });
    await t.connect({ timeoutMs: 60_000 });
    const call = settle(t.client.request({ method: 'POST', path: '/api/v1.1/thing', body: {} }));
    await sent('POST /api/v1.1/thing');
    await t.client.destroy();
    const error = await call;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toMatchObject({ requestNotSent: false, mayHaveSucceeded: true });
  });
});
