import { describe, expect, it, vi } from 'vitest';
import { ConnectionError, InternalServerError, PartnerClient, RateLimitError, TimeoutError } from '../../src/index.js';
import type { Logger } from '../../src/index.js';
import { fail, ok, refusedUrl } from '../helpers/server.js';
import { settleOnFakeClock, useFakeClock } from '../helpers/clock.js';
import { elapsedSince, useTestServer } from '../helpers/server-client.js';
import { type RetryHooks, withRetries } from '../../src/core/retry.js';

const THING = 'GET /api/v1.1/thing';
const getThing = (client: PartnerClient, maxRetries?: number) =>
  settleOnFakeClock(client.request({ method: 'GET', path: '/api/v1.1/thing', ...(maxRetries === undefined ? {} : { maxRetries }) }));

const t = useTestServer();
// Backoff, Retry-After and timeouts pass on a fake clock the client and the server share.
useFakeClock();

function recordingLogger(): Logger & { lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = [];
  const log = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

describe('what is retried', () => {
  it('retries a GET after 500 and 503 and returns the success', async () => {
    t.server.on(THING, [fail(500, 'INTERNAL_ERROR'), fail(503, 'INTERNAL_ERROR'), ok({ done: true })]);
    await expect(getThing(t.client)).resolves.toEqual({ done: true });
    expect(t.server.requestsTo(THING)).toHaveLength(3);
  });

  it('makes at most maxRetries + 1 attempts (default 2 retries) and throws the typed error', async () => {
    t.server.on(THING, fail(500, 'INTERNAL_ERROR'));
    await expect(getThing(t.client)).rejects.toBeInstanceOf(InternalServerError);
    expect(t.server.requestsTo(THING)).toHaveLength(3);
  });

  it('honours a per-call maxRetries', async () => {
    t.server.on(THING, fail(500, 'INTERNAL_ERROR'));
    await expect(getThing(t.client, 0)).rejects.toBeInstanceOf(InternalServerError);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it.each([
    [400, 'VALIDATION_ERROR'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [422, 'INVALID_ROLE'],
    [501, 'NOT_IMPLEMENTED'],
    [502, 'DELIVERY_FAILED'],
  ])('never retries HTTP %i %s', async (status, code) => {
    t.server.on(THING, fail(status, code));
    await expect(getThing(t.client)).rejects.toMatchObject({ status, code });
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('retries a GET that timed out', async () => {
    t.server.on(THING, [{ hang: true }, ok({ done: true })]);
    await t.connect({ timeoutMs: 150 });
    await expect(getThing(t.client)).resolves.toEqual({ done: true });
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });
});

describe('Retry-After', () => {
  it('waits the full Retry-After before retrying a 429', async () => {
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok({ done: true })]);
    const start = performance.now();
    await expect(getThing(t.client)).resolves.toEqual({ done: true });
    expect(elapsedSince(start)).toBeGreaterThanOrEqual(1000);
    const [first, second] = t.server.requestsTo(THING);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('counts the Retry-After wait from the 429 answer, never retrying earlier', async () => {
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok({ done: true })]);
    await getThing(t.client);
    const [throttled, retry] = t.server.requestsTo(THING);
    expect((retry?.at ?? 0) - (throttled?.answeredAt ?? Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(1000);
  });

  it('honours a Retry-After given as an HTTP date: the retry arrives at or after that date', async () => {
    let retryAt = '';
    t.server.on(THING, [
      () => {
        // Two seconds ahead, at whole-second precision as HTTP dates are.
        retryAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000).toUTCString();
        return fail(429, 'RATE_LIMITED', { headers: { 'retry-after': retryAt } });
      },
      ok({ done: true }),
    ]);
    await expect(getThing(t.client)).resolves.toEqual({ done: true });
    const retry = t.server.requestsTo(THING)[1];
    expect(retry?.date).toBeGreaterThanOrEqual(Date.parse(retryAt));
  });

  it('throws RateLimitError with retryAfterSeconds after the last attempt', async () => {
    t.server.on(THING, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }));
    const error = await getThing(t.client, 1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(1);
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });
});

describe('writes without idempotency', () => {
  const post = (target: PartnerClient) => settleOnFakeClock(target.request({ method: 'POST', path: '/api/v1.1/thing', body: { a: 1 } }));

  it('does not retry a plain POST after a 500', async () => {
    t.server.on('POST /api/v1.1/thing', fail(500, 'INTERNAL_ERROR'));
    await expect(post(t.client)).rejects.toBeInstanceOf(InternalServerError);
    expect(t.server.requestsTo('POST /api/v1.1/thing')).toHaveLength(1);
  });

  it('does not retry a plain POST that timed out', async () => {
    t.server.on('POST /api/v1.1/thing', { hang: true });
    await t.connect({ timeoutMs: 150 });
    await expect(post(t.client)).rejects.toBeInstanceOf(TimeoutError);
    expect(t.server.requestsTo('POST /api/v1.1/thing')).toHaveLength(1);
  });

  it('retries a plain POST after a 429, which turned it away before it was processed', async () => {
    t.server.on('POST /api/v1.1/thing', [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '0' } }), ok({ done: true })]);
    await expect(post(t.client)).resolves.toEqual({ done: true });
    expect(t.server.requestsTo('POST /api/v1.1/thing')).toHaveLength(2);
  });

  it('retries a plain POST when the connection was refused (never sent)', async () => {
    const logger = recordingLogger();
    const refused = new PartnerClient({ baseUrl: await refusedUrl(), maxRetries: 2, logger, rateLimit: false });
    const error = await settleOnFakeClock(refused.request({ method: 'POST', path: '/api/v1.1/port-in/eligibility', auth: false, body: {} })).catch(
      (caught: unknown) => caught,
    );
    await refused.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ requestNotSent: true });
    expect(logger.lines.filter((line) => line.level === 'warn' && line.message.startsWith('retrying'))).toHaveLength(2);
  });

  it('does not retry a write again once the limiter refused its retry for the deadline: the TimeoutError ends it', async () => {
    const logger = recordingLogger();
    const route = 'POST /api/v1.1/thing';
    // Deadline: 3 attempts of 1 s plus the slack, 63 s from the first send; after the 429 the
    // route's only slot frees up a window (100 s) later.
    await t.connect({ logger, timeoutMs: 1000, maxRetries: 2, rateLimit: { endpoints: { [route]: { limit: 1, windowMs: 100_000 } } } });
    t.server.on(route, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '0' } }));
    const error = await settleOnFakeClock(t.client.request({ method: 'POST', path: '/api/v1.1/thing', body: { a: 1 } })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true });
    expect((error as Error).message).toMatch(/^POST \/api\/v1\.1\/thing: the rate-limit wait \(\d+ ms\) would end past the call's deadline$/);
    // The retry after the 429, and no other.
    expect(loggedWaits(logger)).toHaveLength(1);
    expect(t.server.requestsTo(route)).toHaveLength(1);
  });
});

describe('backoff', () => {
  it('logs each retry as a warning naming the route and the wait', async () => {
    const logger = recordingLogger();
    await t.connect({ logger });
    t.server.on(THING, [fail(500, 'INTERNAL_ERROR'), ok({ done: true })]);
    await getThing(t.client);
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/^retrying GET \/api\/v1\.1\/thing in \d+ ms$/);
  });

  it('waits less than the 500 ms × 2^n cap between attempts (full jitter)', async () => {
    const logger = recordingLogger();
    await t.connect({ logger });
    t.server.on(THING, [fail(500, 'INTERNAL_ERROR'), fail(500, 'INTERNAL_ERROR'), ok({ done: true })]);
    await getThing(t.client);
    // The waits the client chose, as it logs them: the first below 500 ms, the second below 1 000.
    const waits = logger.lines.filter((line) => line.level === 'warn').map((line) => Number(/in (\d+) ms$/.exec(line.message)?.[1]));
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThanOrEqual(500);
    expect(waits[1]).toBeLessThanOrEqual(1000);
  });

  it('draws retry n + 1 uniformly below 500 ms × 2^n: the middle of the range is half of it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const logger = recordingLogger();
    await t.connect({ logger, maxRetries: 3 });
    t.server.on(THING, [fail(500, 'INTERNAL_ERROR'), fail(500, 'INTERNAL_ERROR'), fail(500, 'INTERNAL_ERROR'), ok({ done: true })]);
    await expect(getThing(t.client)).resolves.toEqual({ done: true });
    expect(loggedWaits(logger)).toEqual([250, 500, 1000]);
  });
});

/** The waits before each retry, as the client logs them. */
function loggedWaits(logger: ReturnType<typeof recordingLogger>): number[] {
  return logger.lines.filter((line) => line.level === 'warn').map((line) => Number(/in (\d+) ms$/.exec(line.message)?.[1]));
}

describe('Retry-After and its jitter', () => {
  it('adds a share of 100 ms + 10 % of the wait on top of a Retry-After, at most 1 s of it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const logger = recordingLogger();
    await t.connect({ logger, rateLimit: false });
    const throttled = (seconds: string) => fail(429, 'RATE_LIMITED', { headers: { 'retry-after': seconds } });
    t.server.on(THING, [throttled('1'), throttled('20'), ok({ done: true })]);
    await expect(getThing(t.client)).resolves.toEqual({ done: true });
    // Half of 100 + 100 ms on top of 1 s; half of the 1 s ceiling on top of 20 s.
    expect(loggedWaits(logger)).toEqual([1100, 20_500]);
  });

  it('waits a Retry-After of exactly maxServerWaitMs, with no jitter past it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const logger = recordingLogger();
    await t.connect({ logger, rateLimit: false, maxServerWaitMs: 2000 });
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '2' } }), ok({ done: true })]);
    await expect(getThing(t.client)).resolves.toEqual({ done: true });
    expect(loggedWaits(logger)).toEqual([2000]);
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });
});

describe('the retry loop', () => {
  /** Attempts that fail with `failures` in turn, then succeed; what the loop asked and when. */
  function scripted(failures: unknown[], decide: (retryIndex: number) => boolean = () => true) {
    const log: string[] = [];
    const hooks: RetryHooks<string> = {
      attempt: (attemptNumber) => {
        log.push(`attempt ${attemptNumber}`);
        return attemptNumber <= failures.length ? Promise.reject(failures[attemptNumber - 1]) : Promise.resolve('done');
      },
      beforeRetry: (error, retryIndex) => {
        log.push(`before retry ${retryIndex} (${String(error)})`);
        return Promise.resolve(decide(retryIndex));
      },
    };
    return { hooks, log };
  }

  it('asks before each retry, numbered from 0, and ends with the success', async () => {
    const { hooks, log } = scripted(['a', 'b']);
    await expect(withRetries(hooks, 2)).resolves.toBe('done');
    expect(log).toEqual(['attempt 1', 'before retry 0 (a)', 'attempt 2', 'before retry 1 (b)', 'attempt 3']);
  });

  it('throws the last attempt’s failure, as thrown, after maxRetries + 1 attempts, without asking after the last', async () => {
    const last = { notAnError: true };
    const { hooks, log } = scripted([new Error('a'), 'b', last]);
    await expect(withRetries(hooks, 2)).rejects.toBe(last);
    expect(log).toEqual(['attempt 1', 'before retry 0 (Error: a)', 'attempt 2', 'before retry 1 (b)', 'attempt 3']);
  });

  it('gives up with the failure beforeRetry declined, and runs the first attempt alone when maxRetries is 0', async () => {
    const declined = scripted([new TypeError('x'), 'y'], (retryIndex) => retryIndex === 0);
    await expect(withRetries(declined.hooks, 5)).rejects.toBe('y');
    expect(declined.log).toEqual(['attempt 1', 'before retry 0 (TypeError: x)', 'attempt 2', 'before retry 1 (y)']);
    const none = scripted(['z']);
    await expect(withRetries(none.hooks, 0)).rejects.toBe('z');
    expect(none.log).toEqual(['attempt 1']);
  });
});
