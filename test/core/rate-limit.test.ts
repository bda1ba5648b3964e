import { getEventListeners } from 'node:events';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { ClientClosedError, ConnectionError, PartnerClient, RateLimitError, TimeoutError } from '../../src/index.js';
import type { Logger, RateLimiter } from '../../src/index.js';
import { RedisRateLimiter } from '../../src/redis/index.js';
import { fail, ok, type RecordedRequest, refusedUrl, type Reply, TOKEN_ROUTE } from '../helpers/server.js';
import { settleOnFakeClock, useFakeClock } from '../helpers/clock.js';
import { elapsedSince, settlesAtOnce, useTestServer } from '../helpers/server-client.js';

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
    await vi.advanceTimersByTimeAsync(15_000);
    expect(vi.getTimerCount()).toBe(0);
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

describe('when a slot frees up: as soon as the server window that counted it has ended, no later', () => {
  const send = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false });
  const rateLimitHeaders = (limit: number, remaining: number, resetSeconds: number) => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(resetSeconds),
  });
  const sent = () => t.server.requestsTo(THING);
  const answeredAt = (request: RecordedRequest | undefined): number => request?.answeredAt ?? Number.NaN;
  // A process that has run for a day: its monotonic clock reads far from zero.
  const upForADay = () => vi.advanceTimersByTimeAsync(24 * 60 * 60_000);

  it('frees the slot one window after its answer, without X-RateLimit headers', async () => {
    await upForADay();
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 1000 } } });
    await send(client);
    await settleOnFakeClock(send(client));
    const [first, second] = sent();
    expect((second?.at ?? 0) - answeredAt(first)).toBeGreaterThanOrEqual(1000);
    expect((second?.at ?? 0) - answeredAt(first)).toBeLessThan(1000 + 100);
  });

  it("holds a route for a 429's Retry-After, no longer", async () => {
    await upForADay();
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok(1)]);
    const client = await t.connect({ maxRetries: 0 });
    await expect(send(client)).rejects.toBeInstanceOf(RateLimitError);
    await settleOnFakeClock(send(client));
    const [throttled, second] = sent();
    expect((second?.at ?? 0) - answeredAt(throttled)).toBeGreaterThanOrEqual(1000);
    expect((second?.at ?? 0) - answeredAt(throttled)).toBeLessThan(1000 + 100);
  });

  it('frees the slot at X-RateLimit-Reset when the reset comes before the end of the window', async () => {
    t.server.on(THING, ok(1, { headers: rateLimitHeaders(2, 1, 1) }));
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 } } });
    await settleOnFakeClock(Promise.all([send(client), send(client), send(client)]));
    const [first, second, third] = sent();
    const firstAnswer = Math.min(answeredAt(first), answeredAt(second));
    expect((third?.at ?? 0) - firstAnswer).toBeGreaterThanOrEqual(1000);
    expect((third?.at ?? 0) - firstAnswer).toBeLessThan(2000);
  });

  it('sends the next call at once after an answer of a known limit with some of it left', async () => {
    t.server.on(THING, ok(1, { headers: rateLimitHeaders(5, 3, 60) }));
    const client = await t.connect({ rateLimit: { account: { limit: 5, windowMs: 60_000 } } });
    await send(client);
    await settleOnFakeClock(send(client));
    const [first, second] = sent();
    expect((second?.at ?? Number.POSITIVE_INFINITY) - answeredAt(first)).toBeLessThan(100);
  });

  it('frees a whole batch when the window its first answer located ends, whatever the later answers took', async () => {
    // Three per window: each window's first arrival is answered at once, the two others 300 and
    // 600 ms later; Remaining counts down within the window as the server's would.
    let arrived = 0;
    t.server.on(THING, () => {
      const place = arrived++ % 3;
      return ok(1, { headers: rateLimitHeaders(3, 2 - place, 1), delayMs: 300 * place });
    });
    const client = await t.connect({ rateLimit: { account: { limit: 3, windowMs: 1000 } } });
    await settleOnFakeClock(Promise.all(Array.from({ length: 9 }, () => send(client))));
    const requests = sent();
    for (const batch of [1, 2]) {
      const opener = answeredAt(requests[3 * (batch - 1)]);
      for (const request of requests.slice(3 * batch, 3 * batch + 3)) {
        expect(request.at - opener).toBeGreaterThanOrEqual(1000);
        expect(request.at - opener).toBeLessThan(1000 + 100);
      }
    }
  });

  it('keeps the window it located when a late answer from an earlier window comes in', async () => {
    // Three per window. The first window's first arrival is answered 1.5 s late, after the second
    // window's own first answer: it says where a window long over lay, not the current one.
    const roles = [
      { remaining: 2, delayMs: 1500 },
      { remaining: 1, delayMs: 0 },
      { remaining: 0, delayMs: 0 },
      { remaining: 2, delayMs: 0 },
      { remaining: 1, delayMs: 0 },
    ];
    let arrived = 0;
    t.server.on(THING, () => {
      const role = roles[arrived++] ?? { remaining: 2, delayMs: 0 };
      return ok(1, { headers: rateLimitHeaders(3, role.remaining, 1), delayMs: role.delayMs });
    });
    const client = await t.connect({ rateLimit: { account: { limit: 3, windowMs: 1000 } } });
    await settleOnFakeClock(Promise.all(Array.from({ length: 8 }, () => send(client))));
    const requests = sent();
    const [late, , , opener] = requests;
    expect(answeredAt(late)).toBeGreaterThan(answeredAt(opener));
    // The second window's three slots, the late one's included, free up together as it ends.
    for (const request of requests.slice(5)) {
      expect(request.at - answeredAt(opener)).toBeGreaterThanOrEqual(1000);
      expect(request.at - answeredAt(opener)).toBeLessThan(1000 + 100);
    }
  });

  it('lets a located window free no slot of an answer after it ended', async () => {
    t.server.on(THING, [ok(1, { headers: rateLimitHeaders(2, 1, 1) }), ok(2)]);
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 1000 } } });
    await send(client);
    await vi.advanceTimersByTimeAsync(2000);
    await Promise.all([send(client), send(client)]);
    await settleOnFakeClock(send(client));
    const [, second, third, fourth] = sent();
    expect((fourth?.at ?? 0) - Math.min(answeredAt(second), answeredAt(third))).toBeGreaterThanOrEqual(1000);
  });

  it('holds each slot a window after its own answer, not after an earlier one', async () => {
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 1000 } } });
    await send(client);
    await vi.advanceTimersByTimeAsync(500);
    await send(client);
    await settleOnFakeClock(Promise.all([send(client), send(client)]));
    const [first, second, third, fourth] = sent();
    expect((third?.at ?? 0) - answeredAt(first)).toBeGreaterThanOrEqual(1000);
    expect((fourth?.at ?? 0) - answeredAt(second)).toBeGreaterThanOrEqual(1000);
  });

  it('admits no more than the limit when a pause for Remaining 0 ends', async () => {
    t.server.on(THING, [ok(1, { headers: rateLimitHeaders(2, 0, 1) }), ok(2)]);
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 } } });
    await send(client);
    await settleOnFakeClock(Promise.all([send(client), send(client), send(client)]));
    const [first, second, third, fourth] = sent();
    expect((second?.at ?? 0) - answeredAt(first)).toBeGreaterThanOrEqual(1000);
    expect((fourth?.at ?? 0) - Math.min(answeredAt(second), answeredAt(third))).toBeGreaterThanOrEqual(60_000);
  });

  it('still admits the calls left waiting when one of them gives up', async () => {
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 1000 } } });
    await send(client);
    const controller = new AbortController();
    const givingUp = client
      .request({ method: 'GET', path: '/api/v1.1/thing', auth: false, signal: controller.signal })
      .catch((caught: unknown) => caught);
    const waiting = send(client);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error('gave up'));
    expect(((await givingUp) as Error).message).toBe('gave up');
    await settleOnFakeClock(waiting);
    const [first, second] = sent();
    expect(sent()).toHaveLength(2);
    expect((second?.at ?? 0) - answeredAt(first)).toBeLessThan(1000 + 100);
  });

  it('waits for a slot past the timer range when its deadline lies further still', async () => {
    const longestTimerMs = 2_147_483_647;
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: longestTimerMs } }, timeoutMs: longestTimerMs, maxRetries: 3 });
    await send(client);
    const waiting = send(client);
    // The slot frees up a window and its margin (about 25 days) after the answer; the call's
    // deadline, four attempts' worth, lies well beyond.
    await vi.advanceTimersByTimeAsync(longestTimerMs + 2 * 60 * 60_000);
    await expect(settleOnFakeClock(waiting)).resolves.toBe(1);
    expect(sent()).toHaveLength(2);
  });

  it("fails a call at once, unsent, with the pause's length, when a pause other calls already wait out ends past its deadline", async () => {
    await upForADay();
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '300' } }), ok(2)]);
    const client = await t.connect({ maxServerWaitMs: 10 * 60_000, maxRetries: 0 });
    await expect(send(client)).rejects.toBeInstanceOf(RateLimitError);
    const patient = client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false, timeoutMs: 10 * 60_000 });
    await vi.advanceTimersByTimeAsync(10);
    const hasty = client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false, timeoutMs: 100 });
    hasty.catch(() => undefined);
    expect(await settlesAtOnce(hasty)).toBe(true);
    const error = await hasty.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true });
    const waitMs = Number(/\((\d+) ms\)/.exec((error as Error).message)?.[1]);
    expect(waitMs).toBeGreaterThan(299_000);
    expect(waitMs).toBeLessThanOrEqual(300_000);
    await expect(settleOnFakeClock(patient)).resolves.toBe(2);
  });

  it('admits the calls waiting first, before one that comes once the slot has freed up but before their timer ran', async () => {
    const OTHER = 'GET /api/v1.1/other';
    t.server.on(THING, ok(1));
    t.server.on(OTHER, ok(2));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 1000 } } });
    await send(client);
    const waiting = send(client);
    await vi.advanceTimersByTimeAsync(10);
    // A busy event loop: the clock is past the instant the slot frees up, and the timer that
    // admits the waiting call has not run yet when another call comes.
    const now = vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 2000);
    const newcomer = client.request({ method: 'GET', path: '/api/v1.1/other', auth: false });
    for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
    now.mockRestore();
    for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(t.server.requestsTo(OTHER)).toHaveLength(0);
    await settleOnFakeClock(Promise.all([waiting, newcomer]));
    const [, second] = sent();
    const [other] = t.server.requestsTo(OTHER);
    expect(other?.at).toBeGreaterThanOrEqual((second?.answeredAt ?? Number.POSITIVE_INFINITY) + 1000);
  });

  it('holds no timer once no call waits in it', async () => {
    // The first answer frees its slot a second later (its reset); the second is held in flight,
    // and says a limit the client does not know has none left for five seconds.
    let releaseHeld: () => void = () => {};
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    t.server.on(THING, async (_request, count) => {
      if (count === 1) return ok(1, { headers: rateLimitHeaders(2, 1, 1) });
      if (count === 2) {
        await held;
        return ok(2, { headers: rateLimitHeaders(50, 0, 5) });
      }
      return ok(count);
    });
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 } }, timeoutMs: 100_000, maxRetries: 0 });
    const withSignal = (controller: AbortController) =>
      client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false, signal: controller.signal }).catch((caught: unknown) => caught);
    await send(client);
    const inFlight = send(client);
    // A call admitted after waiting, then answered: its slot is counted for the window.
    await settleOnFakeClock(send(client));
    // Two calls wait for that slot; the call in flight is answered, and pauses them; both give
    // up, the last one leaving the queue empty.
    const [first, second] = [new AbortController(), new AbortController()];
    const waiting = [withSignal(first), withSignal(second)];
    await vi.advanceTimersByTimeAsync(10);
    releaseHeld();
    await inFlight;
    first.abort(new Error('gave up'));
    second.abort(new Error('gave up'));
    await Promise.all(waiting);
    // Long enough for the connection's own timers to end, far short of the window.
    await vi.advanceTimersByTimeAsync(15_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps its count exact when it drops the entries of answers long past', async () => {
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 30, windowMs: 20 } } });
    // More than 512 answers that free their slots at instants of their own, the first two
    // together: all of them have freed up when the next calls come, and the limiter lets their
    // entries go.
    await Promise.all([send(client), send(client)]);
    for (let i = 0; i < 520; i++) {
      await vi.advanceTimersByTimeAsync(1);
      await send(client);
    }
    await vi.advanceTimersByTimeAsync(100);
    // Three answers that share one instant, then the window they were counted in ends.
    await Promise.all([send(client), send(client), send(client)]);
    await vi.advanceTimersByTimeAsync(100);
    // A window's worth goes out at once, with no fake time passing; the one call more waits.
    const before = sent().length;
    const burst = Promise.all(Array.from({ length: 31 }, () => send(client)));
    for (let turn = 0; turn < 5000 && sent().length < before + 30; turn++) await new Promise((resolve) => setImmediate(resolve));
    for (let turn = 0; turn < 200; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(sent().length - before).toBe(30);
    await settleOnFakeClock(burst);
    expect(sent().length - before).toBe(31);
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
      await vi.advanceTimersByTimeAsync(15_000);
      expect(vi.getTimerCount()).toBe(0);
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
