import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClientClosedError, ConfigurationError, RateLimitError, TimeoutError } from '../../src/index.js';
import type { PartnerClient } from '../../src/index.js';
import { fail, ok, type Reply, TOKEN_ROUTE, tokenReply } from '../helpers/server.js';
import { settleOnFakeClock, useFakeClock } from '../helpers/clock.js';
import { useTestServer } from '../helpers/server-client.js';

const THING = 'GET /api/v1.1/thing';
const getThing = (client: PartnerClient, options: { signal?: AbortSignal; timeoutMs?: number; maxRetries?: number } = {}) =>
  client.request({ method: 'GET', path: '/api/v1.1/thing', ...options });
const throttled = (retryAfter: string): Reply => fail(429, 'RATE_LIMITED', { headers: { 'retry-after': retryAfter } });
const OTHER = 'GET /api/v1.1/other';
const getOther = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/other' });
const SMS = 'POST /api/v1.1/sms';
const sendSms = (client: PartnerClient) => client.request({ method: 'POST', path: '/api/v1.1/sms', body: { to: '+1', text: 'hi' } });

const t = useTestServer();

/** Every process warning raised during the test. */
let warnings: Error[];
const onWarning = (warning: Error): void => void warnings.push(warning);
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

/** Lets warnings queued with process.nextTick / setImmediate arrive. */
const settleWarnings = () => new Promise((resolve) => setImmediate(resolve));

/** Turns the event loop (real turns, whatever clock is faked) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/** Fake time passes in steps of `ms` until `condition` holds, or `limitMs` has passed. */
async function advanceUntil(condition: () => boolean, limitMs: number, ms = 10): Promise<number> {
  let advanced = 0;
  for (; !condition() && advanced < limitMs; advanced += ms) {
    for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(ms);
  }
  return advanced;
}

describe('a Retry-After above maxServerWaitMs', () => {
  useFakeClock();

  /** A year ahead, in each form a server may write it (spec part 8 rule 1; RFC 9110 §10.2.3). */
  const aYearAhead: ReadonlyArray<[string, () => string, number]> = [
    ['an HTTP-date', () => new Date(Date.now() + 366 * 86_400_000).toUTCString(), 366 * 86_400],
    ['delay-seconds', () => '86400', 86_400],
    ['400 nines', () => '9'.repeat(400), Number.MAX_SAFE_INTEGER],
  ];

  it.each(aYearAhead)('fails at once with the RateLimitError carrying the server value (%s), after one request', async (_, header, seconds) => {
    t.server.on(THING, [throttled(header()), ok(1)]);
    const error = await getThing(t.client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBeGreaterThanOrEqual(seconds - 1);
    expect((error as RateLimitError).retryAfterSeconds).toBeLessThanOrEqual(seconds);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it.each(aYearAhead)(
    'believes the pause (%s) for maxServerWaitMs at most: the route is asked again from then on; other routes go on',
    async (_, header) => {
      t.server.on(THING, [throttled(header()), ok(2)]);
      t.server.on(OTHER, ok('other'));
      const client = await t.connect({ maxServerWaitMs: 150 });
      await expect(getThing(client)).rejects.toBeInstanceOf(RateLimitError);
      const answeredAt = Date.now();
      const next = getThing(client);
      await expect(getOther(client)).resolves.toBe('other');
      // Held until maxServerWaitMs after the answer that imposed the pause, then sent.
      await advanceUntil(() => t.server.requestsTo(THING).length === 2, 1_000);
      expect(t.server.requestsTo(THING)[1]?.date).toBeGreaterThanOrEqual(answeredAt + 150);
      expect(t.server.requestsTo(THING)[1]?.date).toBeLessThan(answeredAt + 150 + 100);
      await expect(next).resolves.toBe(2);
    },
  );

  it('sends a call already queued on the route when the pause arrives once maxServerWaitMs has passed', async () => {
    t.server.on(THING, [{ ...throttled('86400'), delayMs: 50 }, ok(2)]);
    const client = await t.connect({ maxServerWaitMs: 150, rateLimit: { endpoints: { [THING]: { limit: 1, windowMs: 60_000 } } } });
    await client.auth.token();
    const first = getThing(client).catch((caught: unknown) => caught);
    // Queued behind the first call's slot (held until its answer), then behind the pause.
    const queued = getThing(client, { maxRetries: 0 }).catch((caught: unknown) => caught);
    const [throttledError, second] = await settleOnFakeClock(Promise.all([first, queued]));
    expect(throttledError).toBeInstanceOf(RateLimitError);
    expect(second).toBe(2);
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });

  it('asks the token route again maxServerWaitMs after a Retry-After a year ahead on the exchange', async () => {
    t.server.on(TOKEN_ROUTE, [throttled('31536000'), tokenReply()]);
    t.server.on(THING, ok(4));
    const client = await t.connect({ maxServerWaitMs: 200 });
    const error = await getThing(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(31_536_000);
    await vi.advanceTimersByTimeAsync(200);
    await expect(settleOnFakeClock(getThing(client))).resolves.toBe(4);
    expect(t.server.exchanges).toBe(2);
  });

  it('with maxServerWaitMs 0, never waits on Retry-After: the next call is sent at once', async () => {
    t.server.on(THING, [throttled('1'), ok(3)]);
    const client = await t.connect({ maxServerWaitMs: 0 });
    await expect(getThing(client)).rejects.toBeInstanceOf(RateLimitError);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
    await expect(getThing(client)).resolves.toBe(3);
  });
});

// On real timers: a TimeoutOverflowWarning comes from Node's own setTimeout.
describe('waits past the timer range', () => {
  it('chains timers for a 2.2-million-second wait: no TimeoutOverflowWarning, no busy loop, destroy() ends it', async () => {
    t.server.on(THING, throttled('2200000'));
    // A cap and a call budget large enough that the client really waits (in backoff and in the limiter).
    const client = await t.connect({ maxServerWaitMs: 3_000_000_000, timeoutMs: 2 ** 31 - 1 });
    const sleeping = getThing(client).catch((caught: unknown) => caught);
    await until(() => t.server.requestsTo(THING)[0]?.answeredAt !== undefined);
    // Time for the client to read the answer and start its wait, and for a busy loop to show.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const queued = getThing(client).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await settleWarnings();
    expect(t.server.requestsTo(THING)).toHaveLength(1);
    await client.destroy();
    expect(await sleeping).toBeInstanceOf(ClientClosedError);
    expect(await queued).toBeInstanceOf(ClientClosedError);
    await settleWarnings();
    expect(warnings.map((warning) => warning.name)).not.toContain('TimeoutOverflowWarning');
  });
});

describe('rate-limit resets', () => {
  useFakeClock();
  const exhausted = (limit: number, reset: number): Reply =>
    ok(1, { headers: { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) } });

  it('holds the route for maxServerWaitMs at most when a limit the client does not know resets a day away', async () => {
    t.server.on(THING, [exhausted(7, 86_400), ok(2)]);
    const client = await t.connect({ maxServerWaitMs: 150 });
    await expect(getThing(client)).resolves.toBe(1);
    const answeredAt = Date.now();
    await expect(settleOnFakeClock(getThing(client))).resolves.toBe(2);
    expect(t.server.requestsTo(THING)[1]?.date).toBeGreaterThanOrEqual(answeredAt + 150);
    expect(t.server.requestsTo(THING)[1]?.date).toBeLessThan(answeredAt + 150 + 100);
  });

  it('waits out a reset of a limit the client does not know within maxServerWaitMs', async () => {
    t.server.on(THING, [exhausted(7, 1), ok(2)]);
    const client = await t.connect({ maxServerWaitMs: 1000 });
    await expect(getThing(client)).resolves.toBe(1);
    const start = performance.now();
    await expect(settleOnFakeClock(getThing(client))).resolves.toBe(2);
    expect(performance.now() - start).toBeGreaterThanOrEqual(1000);
  });

  // The account's limit, or an endpoint's, as the client enforces it: the pause after Remaining 0
  // lasts at most one window of it, and no longer than maxServerWaitMs, like any server-imposed wait.
  it.each([
    ['the account', THING, { account: { limit: 120, windowMs: 60_000 } }, 120],
    ['an endpoint', SMS, { endpoints: { [SMS]: { limit: 30, windowMs: 60_000 } } }, 30],
  ] as const)(
    "after Remaining 0 of %s's limit with a reset a day away, sends the next call maxServerWaitMs later",
    async (_which, route, rateLimit, limit) => {
      t.server.on(route, [exhausted(limit, 86_400), ok(2)]);
      const client = await t.connect({ maxServerWaitMs: 150, rateLimit });
      const send = () => (route === SMS ? sendSms(client) : getThing(client));
      await expect(send()).resolves.toBe(1);
      const answeredAt = Date.now();
      await expect(settleOnFakeClock(send())).resolves.toBe(2);
      expect(t.server.requestsTo(route)[1]?.date).toBeGreaterThanOrEqual(answeredAt + 150);
      expect(t.server.requestsTo(route)[1]?.date).toBeLessThan(answeredAt + 150 + 100);
    },
  );

  it('with maxServerWaitMs 0, never waits on Remaining 0', async () => {
    t.server.on(THING, [exhausted(120, 30), ok(2)]);
    const client = await t.connect({ maxServerWaitMs: 0 });
    await expect(getThing(client)).resolves.toBe(1);
    const answeredAt = Date.now();
    // No fake time passes: a call that waited on any timer would never settle.
    await expect(getThing(client)).resolves.toBe(2);
    expect(t.server.requestsTo(THING)[1]?.date).toBe(answeredAt);
  });

  it('holds a known limit at most one window, whatever the reset says', async () => {
    t.server.on(THING, [exhausted(5, 86_400), ok(2)]);
    const client = await t.connect({ rateLimit: { account: { limit: 5, windowMs: 200 } } });
    await expect(getThing(client)).resolves.toBe(1);
    await expect(settleOnFakeClock(getThing(client))).resolves.toBe(2);
  });

  it('fails a call at once, unsent, when the pause ends past its own deadline', async () => {
    // Five minutes: within maxServerWaitMs, past the call's deadline (one 100 ms attempt and the slack).
    t.server.on(THING, [exhausted(7, 300), ok(2)]);
    const client = await t.connect({ maxServerWaitMs: 10 * 60_000 });
    await expect(getThing(client)).resolves.toBe(1);
    const error = await settleOnFakeClock(getThing(client, { timeoutMs: 100, maxRetries: 0 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true });
    expect((error as Error).message).toMatch(/rate-limit wait/);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });
});

describe('a call queued behind its own limiter', () => {
  useFakeClock();

  it('fails with a TimeoutError, unsent, when its deadline comes while it waits for a slot', async () => {
    t.server.on(THING, [{ hang: true }, ok(2)]);
    // The holder's own timeout lies past the queued call's deadline (100 ms per attempt plus the slack).
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 1000 } }, timeoutMs: 120_000, maxRetries: 0 });
    await client.auth.token();
    const holder = getThing(client).catch((caught: unknown) => caught);
    // The exchange took the window's only slot: the holder goes out in the next window.
    await settleOnFakeClock(until(() => t.server.requestsTo(THING).length === 1));
    // The only slot is held by a request in flight: when it frees up is unknown.
    const queued = getThing(client, { timeoutMs: 100 }).catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(100 + 60_000 + 10);
    const error = await queued;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true });
    expect((error as Error).message).toBe("GET /api/v1.1/thing: the rate-limit wait would end past the call's deadline");
    expect(t.server.requestsTo(THING)).toHaveLength(1);
    await client.destroy();
    await holder;
  });

  it('refuses a retry at once, unsent, when its wait for a slot would end past the deadline its first send started', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    // Deadline: 2 attempts of 30 s plus the slack, 120 s from the first send. The first answer
    // comes 25 s in; the route's only slot frees up a window (100 s) later, 5 s past the deadline.
    t.server.on(THING, [{ ...fail(503, 'INTERNAL_ERROR'), delayMs: 25_000 }, ok(2)]);
    const client = await t.connect({ rateLimit: { endpoints: { [THING]: { limit: 1, windowMs: 100_000 } } }, timeoutMs: 30_000, maxRetries: 1 });
    const call = getThing(client).catch((caught: unknown) => caught);
    await until(() => t.server.requestsTo(THING).length === 1);
    const sentAt = performance.now();
    const error = await settleOnFakeClock(call);
    expect(performance.now() - sentAt).toBeLessThan(30_000);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true });
    const message = (error as Error).message;
    expect(message).toMatch(/^GET \/api\/v1\.1\/thing: the rate-limit wait \((\d+) ms\) would end past the call's deadline$/);
    const waitMs = Number(/\((\d+) ms\)/.exec(message)?.[1]);
    expect(waitMs).toBeGreaterThanOrEqual(100_000);
    expect(waitMs).toBeLessThanOrEqual(100_400);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });
});

describe('Retry-After jitter', () => {
  useFakeClock();

  it('spreads the retries of many calls throttled together, never before the server said', async () => {
    const CALLS = 40;
    const throttledAt = new Map<string, number>();
    let releaseAll: () => void = () => undefined;
    const allArrived = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    t.server.on(THING, async (request) => {
      const id = request.headers['x-call'] as string;
      if (throttledAt.has(id)) return ok(id);
      throttledAt.set(id, 0);
      if (throttledAt.size === CALLS) releaseAll();
      // Every 429 is answered in the same instant, as a storm would be.
      await allArrived;
      throttledAt.set(id, performance.now());
      return throttled('2');
    });
    const client = await t.connect({ rateLimit: false });
    const ids = Array.from({ length: CALLS }, (_, index) => `c${index}`);
    await settleOnFakeClock(Promise.all(ids.map((id) => client.request({ method: 'GET', path: '/api/v1.1/thing', headers: { 'x-call': id } }))));
    const seen = new Set<string>();
    const retries = t.server.requestsTo(THING).filter((request) => {
      const id = request.headers['x-call'] as string;
      if (seen.has(id)) return true;
      seen.add(id);
      return false;
    });
    expect(retries).toHaveLength(CALLS);
    for (const retry of retries) expect(retry.at - (throttledAt.get(retry.headers['x-call'] as string) as number)).toBeGreaterThanOrEqual(2000);
    // Without jitter all 40 would come back within a few milliseconds of each other.
    const arrivals = retries.map((retry) => retry.at);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThan(100);
  });
});

describe('many calls waiting', () => {
  it('50 calls in backoff raise no MaxListenersExceededWarning, and destroy() ends all of them', async () => {
    t.server.on(THING, throttled('30'));
    const client = await t.connect({ rateLimit: false });
    const calls = Array.from({ length: 50 }, () => getThing(client).catch((caught: unknown) => caught));
    await until(() => t.server.requestsTo(THING).length === 50);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await client.destroy();
    for (const outcome of await Promise.all(calls)) expect(outcome).toBeInstanceOf(ClientClosedError);
    await settleWarnings();
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });

  it('50 calls with their own signals in backoff: each abort ends only its call', async () => {
    t.server.on(THING, throttled('30'));
    const client = await t.connect({ rateLimit: false });
    const controllers = Array.from({ length: 50 }, () => new AbortController());
    const calls = controllers.map((controller) => getThing(client, { signal: controller.signal }).catch((caught: unknown) => caught));
    await until(() => t.server.requestsTo(THING).length === 50);
    for (const controller of controllers) controller.abort(new Error('caller gave up'));
    for (const outcome of await Promise.all(calls)) expect((outcome as Error).message).toBe('caller gave up');
    await settleWarnings();
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });
});

describe('maxServerWaitMs option', () => {
  it.each([-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '60000', 60_000n])(
    'refuses %s at construction with a ConfigurationError naming the option, sending nothing',
    async (value) => {
      const error = await t.connect({ maxServerWaitMs: value as number }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/maxServerWaitMs/);
      expect(t.server.requests).toHaveLength(0);
    },
  );
});
