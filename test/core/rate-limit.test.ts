import { getEventListeners } from 'node:events';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { ClientClosedError, ConnectionError, PartnerClient, TimeoutError } from '../../src/index.js';
import type { Logger, RateLimiter } from '../../src/index.js';
import { LocalRateLimiter } from '../../src/core/rate-limit.js';
import { RedisRateLimiter } from '../../src/redis/index.js';
import { fail, ok, type RecordedRequest, refusedUrl, type Reply, TOKEN_ROUTE } from '../helpers/server.js';
import { outwaitConnections, pendingTimers, settleOnFakeClock, useFakeClock } from '../helpers/clock.js';
import { elapsedSince, useTestServer } from '../helpers/server-client.js';

const THING = 'GET /api/v1.1/thing';
const SMS = 'POST /api/v1.1/sms';

const t = useTestServer();
// Windows, resets and Retry-After pass on a fake clock the client and the server share.
useFakeClock();

/**
 * A server-side fixed window like the sandbox's: opened by the first request after the previous
 * one expired, 429 beyond `limit`, and (with `headers`) X-RateLimit-* on every other answer.
 * `jitterMs` delays each answer by a random time below it, after counting the request.
 */
function enforcingWindow(
  limit: number,
  windowMs: number,
  options: { headers?: boolean; jitterMs?: number } = {},
): { reply: (request: RecordedRequest) => Reply; throttled: () => number } {
  let windowStart = Number.NEGATIVE_INFINITY;
  let used = 0;
  let throttled = 0;
  const reply = (request: RecordedRequest): Reply => {
    if (request.at - windowStart >= windowMs) {
      windowStart = request.at;
      used = 0;
    }
    const resetSeconds = Math.ceil((windowStart + windowMs - request.at) / 1000);
    if (used >= limit) {
      throttled += 1;
      return fail(429, 'RATE_LIMITED', { headers: { 'retry-after': String(resetSeconds) } });
    }
    used += 1;
    const headers: Record<string, string> = options.headers
      ? { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(limit - used), 'x-ratelimit-reset': String(resetSeconds) }
      : {};
    return ok(1, { headers, delayMs: Math.random() * (options.jitterMs ?? 0) });
  };
  return { reply, throttled: () => throttled };
}

const getThing = (target: PartnerClient) => target.request({ method: 'GET', path: '/api/v1.1/thing' });

describe('client-side windows', () => {
  it.each([
    ['with X-RateLimit headers', true],
    ['without X-RateLimit headers', false],
  ])('spreads a burst over the windows instead of drawing 429s, %s, under latency jitter', async (_name, headers) => {
    const window = enforcingWindow(5, 400, { headers, jitterMs: 80 });
    t.server.on(THING, window.reply);
    const client = await t.connect({ rateLimit: { account: { limit: 5, windowMs: 400 } } });
    await settleOnFakeClock(getThing(client)); // exchange the token outside the measured burst
    await vi.advanceTimersByTimeAsync(450);
    const start = performance.now();
    await settleOnFakeClock(Promise.all(Array.from({ length: 20 }, () => getThing(client))));
    expect(window.throttled()).toBe(0);
    // Four windows of five: the last batch leaves no earlier than three window lengths later.
    expect(elapsedSince(start)).toBeGreaterThanOrEqual(3 * 400);
    expect(t.server.requestsTo(THING)).toHaveLength(21);
  });

  it('sends a burst at once when rateLimit is false', async () => {
    // No answer is written until all 30 requests have arrived: a client that held any back would never finish.
    let arrived = 0;
    let allArrived: () => void = () => {};
    const all = new Promise<void>((resolve) => (allArrived = resolve));
    t.server.on(THING, async () => {
      if (++arrived === 30) allArrived();
      await all;
      return ok(1);
    });
    const client = await t.connect({ rateLimit: false });
    await expect(Promise.all(Array.from({ length: 30 }, () => getThing(client)))).resolves.toHaveLength(30);
  });

  it('holds an endpoint at its own limit without slowing other routes', async () => {
    t.server.on(SMS, ok({ messageId: 'm' }));
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { endpoints: { [SMS]: { limit: 2, windowMs: 600 } } } });
    await getThing(client);
    const sms = Promise.all(Array.from({ length: 3 }, () => client.request({ method: 'POST', path: '/api/v1.1/sms', body: {} })));
    await getThing(client);
    // The other route went out and was answered while the third SMS was still held for the next window.
    expect(t.server.requestsTo(SMS).length).toBeLessThan(3);
    await settleOnFakeClock(sms);
    const [first, , third] = t.server.requestsTo(SMS);
    expect((third?.at ?? 0) - (first?.answeredAt ?? 0)).toBeGreaterThanOrEqual(600);
  });

  it('applies a templated endpoint limit to client.request() calls by concrete path', async () => {
    const route = 'POST /api/v1.1/sims/{iccid}/renew-number';
    t.server.on('POST /api/v1.1/sims/8901/renew-number', ok({}));
    t.server.on('POST /api/v1.1/sims/8902/renew-number', ok({}));
    const client = await t.connect({ rateLimit: { endpoints: { [route]: { limit: 2, windowMs: 500 } } } });
    await getThing(client).catch(() => undefined);
    const start = performance.now();
    await settleOnFakeClock(
      Promise.all(['8901', '8902', '8901'].map((iccid) => client.request({ method: 'POST', path: `/api/v1.1/sims/${iccid}/renew-number` }))),
    );
    expect(elapsedSince(start)).toBeGreaterThanOrEqual(500);
  });
});

describe('retries and replays', () => {
  it('sends a retry through the limiter too', async () => {
    t.server.on(THING, [fail(503, 'INTERNAL_ERROR'), ok(1)]);
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 500 } } });
    await settleOnFakeClock(getThing(client));
    // The exchange and the first attempt took both slots; the retry waits for the first to age out.
    const [exchange] = t.server.requestsTo(TOKEN_ROUTE);
    const retry = t.server.requestsTo(THING)[1];
    expect((retry?.at ?? 0) - (exchange?.answeredAt ?? Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(500);
  });
});

describe('following the server', () => {
  it('waits for X-RateLimit-Reset when X-RateLimit-Remaining is 0', async () => {
    t.server.on(THING, [
      ok(1, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } }),
      ok(2, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '60' } }),
    ]);
    const client = t.client;
    // The pause runs from the first answer, which comes after this instant: measured from here,
    // a slow turn of the event loop between the two calls cannot make the wait look short.
    const start = performance.now();
    await getThing(client);
    await expect(settleOnFakeClock(getThing(client))).resolves.toBe(2);
    expect(elapsedSince(start)).toBeGreaterThanOrEqual(1000);
  });

  it('waits for the reset when a limit the client was not configured with has none left', async () => {
    t.server.on(THING, [
      ok(1, { headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } }),
      ok(2, { headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '49', 'x-ratelimit-reset': '60' } }),
    ]);
    const client = t.client;
    // The pause runs from the first answer, which comes after this instant: measured from here,
    // a slow turn of the event loop between the two calls cannot make the wait look short.
    const start = performance.now();
    await getThing(client);
    await expect(settleOnFakeClock(getThing(client))).resolves.toBe(2);
    expect(elapsedSince(start)).toBeGreaterThanOrEqual(1000);
  });

  it("pauses the whole endpoint for a 429's Retry-After, not only the throttled call", async () => {
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok(1)]);
    const client = t.client;
    const first = getThing(client);
    while (t.server.requestsTo(THING).length === 0) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(50);
    const second = getThing(client);
    await settleOnFakeClock(Promise.all([first, second]));
    const [throttled, ...later] = t.server.requestsTo(THING);
    expect(later).toHaveLength(2);
    for (const request of later) expect(request.at - (throttled?.at ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('keeps other endpoints flowing while one is paused by a 429', async () => {
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok(1)]);
    t.server.on('GET /api/v1.1/other', ok(2));
    const client = t.client;
    const throttled = getThing(client);
    while (t.server.requestsTo(THING).length === 0) await new Promise((resolve) => setImmediate(resolve));
    await client.request({ method: 'GET', path: '/api/v1.1/other' });
    // The other route was answered while the throttled one still waited out its Retry-After.
    expect(t.server.requestsTo(THING)).toHaveLength(1);
    await settleOnFakeClock(throttled);
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });
});

describe('which gate a call, an answer and a pause reach', () => {
  const send = (client: PartnerClient, route: 'sms' | 'thing', signal?: AbortSignal) =>
    route === 'sms'
      ? client.request({ method: 'POST', path: '/api/v1.1/sms', body: {}, auth: false, ...(signal ? { signal } : {}) })
      : client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false });
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setImmediate(resolve));
  };

  it("pauses an endpoint with a limit of its own for a 429's Retry-After", async () => {
    t.server.on(SMS, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok(1)]);
    const client = await t.connect({ rateLimit: { endpoints: { [SMS]: { limit: 10, windowMs: 60_000 } } } });
    const first = send(client, 'sms');
    await until(() => t.server.requestsTo(SMS).length === 1);
    await vi.advanceTimersByTimeAsync(50);
    const second = send(client, 'sms');
    await settleOnFakeClock(Promise.all([first, second]));
    const [throttled, ...later] = t.server.requestsTo(SMS);
    expect(later).toHaveLength(2);
    for (const request of later) expect(request.at - (throttled?.answeredAt ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('keeps the longer of two pauses of a route without a limit of its own', async () => {
    // Two calls in flight together: the first is told 5 s, the second, answered later, 1 s.
    t.server.on(THING, [
      fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '5' } }),
      { ...fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), delayMs: 100 },
      ok(1),
    ]);
    const client = await t.connect({});
    await settleOnFakeClock(Promise.all([send(client, 'thing'), send(client, 'thing')]));
    const [first, , ...later] = t.server.requestsTo(THING);
    expect(later).toHaveLength(2);
    for (const request of later) expect(request.at - (first?.answeredAt ?? 0)).toBeGreaterThanOrEqual(5000);
  });

  it("holds a call that waited for its endpoint's slot for the account's too", async () => {
    t.server.on(SMS, ok(1));
    t.server.on(THING, ok(2));
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 1000 }, endpoints: { [SMS]: { limit: 1, windowMs: 100 } } } });
    await settleOnFakeClock(Promise.all([send(client, 'sms'), send(client, 'thing'), send(client, 'sms')]));
    const [first, second] = t.server.requestsTo(SMS);
    const firstAnswer = Math.min(first?.answeredAt ?? 0, t.server.requestsTo(THING)[0]?.answeredAt ?? 0);
    expect((second?.at ?? 0) - firstAnswer).toBeGreaterThanOrEqual(1000);
  });

  it("gives the endpoint's slot back when a call gives up waiting for the account's", async () => {
    t.server.on(THING, ok(1));
    t.server.on(SMS, ok(2));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 10_000 }, endpoints: { [SMS]: { limit: 1, windowMs: 100 } } } });
    await send(client, 'thing');
    const controller = new AbortController();
    // Holds the only SMS slot while it waits for the account's.
    const aborted = send(client, 'sms', controller.signal).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error('gave up'));
    expect(((await aborted) as Error).message).toBe('gave up');
    await expect(settleOnFakeClock(send(client, 'sms'))).resolves.toBe(2);
    expect(t.server.requestsTo(SMS)).toHaveLength(1);
  });

  it("holds no timer once the calls an endpoint's slot given back let through stop waiting", async () => {
    t.server.on(THING, ok(1));
    t.server.on(SMS, ok(2));
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 }, endpoints: { [SMS]: { limit: 2, windowMs: 60_000 } } } });
    await send(client, 'sms');
    await send(client, 'thing');
    // The account is full for a minute: the first SMS holds the endpoint's second slot while it
    // waits for the account's, the second waits for the endpoint's. The first gives up, its
    // endpoint slot goes to the second, which waits for the account's in turn, then gives up too.
    const [first, second] = [new AbortController(), new AbortController()];
    const holding = send(client, 'sms', first.signal).catch((caught: unknown) => caught);
    const waiting = send(client, 'sms', second.signal).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(10);
    first.abort(new Error('gave up'));
    await holding;
    await vi.advanceTimersByTimeAsync(10);
    second.abort(new Error('gave up'));
    expect(((await waiting) as Error).message).toBe('gave up');
    // Long enough for the connection's own timers to end, far short of the window.
    await outwaitConnections(15_000);
    expect(pendingTimers()).toEqual([]);
    expect(t.server.requestsTo(SMS)).toHaveLength(1);
  });

  it('lets the headers of a limit it was not configured with, some of it left, free no slot early', async () => {
    t.server.on(THING, ok(1, { headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '49', 'x-ratelimit-reset': '1' } }));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 60_000 } } });
    await send(client, 'thing');
    await settleOnFakeClock(send(client, 'thing'));
    const [first, second] = t.server.requestsTo(THING);
    expect((second?.at ?? 0) - (first?.answeredAt ?? 0)).toBeGreaterThanOrEqual(60_000);
  });

  it("lets the account's headers free no slot of an endpoint early", async () => {
    t.server.on(SMS, ok(1, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '1' } }));
    const client = await t.connect({
      rateLimit: { account: { limit: 120, windowMs: 60_000 }, endpoints: { [SMS]: { limit: 1, windowMs: 60_000 } } },
    });
    await send(client, 'sms');
    await settleOnFakeClock(send(client, 'sms'));
    const [first, second] = t.server.requestsTo(SMS);
    expect((second?.at ?? 0) - (first?.answeredAt ?? 0)).toBeGreaterThanOrEqual(60_000);
  });

  it('does not pause for a limit it was not configured with while some of it is left', async () => {
    t.server.on(THING, ok(1, { headers: { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '10', 'x-ratelimit-reset': '30' } }));
    const client = await t.connect({});
    await send(client, 'thing');
    await settleOnFakeClock(send(client, 'thing'));
    const [first, second] = t.server.requestsTo(THING);
    expect((second?.at ?? 0) - (first?.answeredAt ?? 0)).toBeLessThan(1000);
  });

  it('gives the slot of a request never sent (the connection refused) back at once', async () => {
    const refused = new PartnerClient({ baseUrl: await refusedUrl(), maxRetries: 0, rateLimit: { account: { limit: 1, windowMs: 60_000 } } });
    try {
      for (let i = 0; i < 2; i++) {
        const error = await settleOnFakeClock(send(refused, 'thing')).catch((caught: unknown) => caught);
        // Not the TimeoutError of a wait for a slot that never frees up.
        expect(error).toBeInstanceOf(ConnectionError);
        expect(error).not.toBeInstanceOf(TimeoutError);
        expect(error).toMatchObject({ requestNotSent: true });
      }
    } finally {
      await refused.destroy();
    }
  });

  it('admits a call waiting behind a request never sent as soon as that slot is given back', async () => {
    const refused = new PartnerClient({ baseUrl: await refusedUrl(), maxRetries: 0, rateLimit: { account: { limit: 1, windowMs: 60_000 } } });
    try {
      const start = performance.now();
      const outcomes = await settleOnFakeClock(Promise.allSettled([send(refused, 'thing'), send(refused, 'thing')]));
      for (const outcome of outcomes) {
        const error = outcome.status === 'rejected' ? (outcome.reason as unknown) : undefined;
        // The second call was refused too, not held until its deadline for a slot never used.
        expect(error).toBeInstanceOf(ConnectionError);
        expect(error).not.toBeInstanceOf(TimeoutError);
      }
      expect(elapsedSince(start)).toBeLessThan(1000);
    } finally {
      await refused.destroy();
    }
  });

  it("ends a call waiting for an endpoint's slot at once when the client is destroyed", async () => {
    t.server.on(SMS, ok(1));
    const client = await t.connect({ rateLimit: { endpoints: { [SMS]: { limit: 1, windowMs: 60_000 } } } });
    await send(client, 'sms');
    let settled = false;
    const queued = send(client, 'sms')
      .catch((caught: unknown) => caught)
      .finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(10);
    const destroyed = client.destroy();
    for (let turn = 0; turn < 50 && !settled; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
    expect(await queued).toBeInstanceOf(ClientClosedError);
    await destroyed;
  });
});

describe("a RedisRateLimiter's in-memory fallback", () => {
  /**
   * A Redis nobody listens for: each script run fails at once, and under fail-open the limiter
   * limits this process in memory, with the same limits, for the store's retry interval (which
   * the fake clock never lets pass).
   */
  async function unreachableRedis(): Promise<Redis> {
    const redis = new Redis(Number(new URL(await refusedUrl()).port), '127.0.0.1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    // The refused connection, told to the limiter by the commands that fail with it.
    redis.on('error', () => {});
    return redis;
  }

  it('ends a call waiting in it with ClientClosedError when the limiter is closed, never sent, and keeps no timer', async () => {
    const redis = await unreachableRedis();
    const warnings: string[] = [];
    const logger: Logger = { debug: () => {}, info: () => {}, warn: (message) => warnings.push(message), error: () => {} };
    const limiter = new RedisRateLimiter({ redis, account: { limit: 1, windowMs: 60_000 } });
    t.server.on(THING, ok(1));
    try {
      const client = await t.connect({ rateLimit: limiter, logger });
      await expect(client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false })).resolves.toBe(1);
      expect(warnings).toEqual([expect.stringMatching(/Redis is unavailable.*in memory/)]);
      // The fallback's only slot is taken for a minute (and the fake clock keeps Redis unasked).
      let settled = false;
      const waiting = client
        .request({ method: 'GET', path: '/api/v1.1/thing', auth: false })
        .catch((caught: unknown) => caught)
        .finally(() => (settled = true));
      for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      limiter.close();
      const error = await waiting;
      expect(error).toBeInstanceOf(ClientClosedError);
      expect(error).toMatchObject({ requestNotSent: true, message: expect.stringMatching(/ was closed while the call waited for a /) });
      expect(t.server.requestsTo(THING)).toHaveLength(1);
      // Neither the slot's timer nor the call's deadline outlives the close.
      await outwaitConnections(15_000);
      expect(pendingTimers()).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('leaves no listener on the signal of a call that waited in it', async () => {
    const redis = await unreachableRedis();
    const fleet = new RedisRateLimiter({ redis, account: { limit: 1, windowMs: 1000 } });
    // The limiter as the client sees it, and the signal each call brings to it.
    const signals: AbortSignal[] = [];
    const recording: RateLimiter = {
      acquire: (route, admission) => {
        if (admission?.signal) signals.push(admission.signal);
        return fleet.acquire(route, admission);
      },
      release: (route, sentAt, rateLimit) => fleet.release(route, sentAt, rateLimit),
      giveBack: (route) => fleet.giveBack(route),
      pause: (route, ms) => fleet.pause(route, ms),
      close: () => fleet.close(),
      attach: (context) => fleet.attach(context),
    };
    const silent: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
    t.server.on(THING, ok(1));
    try {
      const client = await t.connect({ rateLimit: recording, logger: silent });
      await client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false });
      // The second call waits a window in the fallback for the only slot, then is sent.
      await settleOnFakeClock(client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false }));
      expect(t.server.requestsTo(THING)).toHaveLength(2);
      expect(signals).toHaveLength(2);
      // A listener left on it would keep the call's waiter alive for as long as the signal lives.
      expect(getEventListeners(signals[1] as AbortSignal, 'abort')).toEqual([]);
    } finally {
      fleet.close();
      redis.disconnect();
    }
  });
});

describe('LocalRateLimiter on its own', () => {
  it('refuses every acquire once closed, on any route, with the reason it was closed with', async () => {
    const limiter = new LocalRateLimiter({ account: { limit: 10, windowMs: 1000 } });
    const reason = new Error('closed');
    limiter.close(reason as ClientClosedError);
    for (const route of ['GET /api/v1.1/sims', 'POST /api/v1.1/sms']) await expect(limiter.acquire(route)).rejects.toBe(reason);
  });
});
