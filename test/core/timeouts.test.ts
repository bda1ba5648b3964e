import { getEventListeners, getMaxListeners, setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEADLINE_SLACK_MS } from '../../src/core/defaults.js';
import { ClientClosedError, type Logger, RateLimitError, TimeoutError } from '../../src/index.js';
import { installFakeClock } from '../helpers/clock.js';
import { fail, ok, TOKEN_ROUTE, tokenAnswer } from '../helpers/server.js';
import { settlesAtOnce, useTestServer } from '../helpers/server-client.js';

const THING = 'GET /api/v1.1/thing';

const t = useTestServer({ timeoutMs: 200 });

const getThing = (options: { signal?: AbortSignal; maxRetries?: number; timeoutMs?: number } = {}) =>
  t.client.request({ method: 'GET', path: '/api/v1.1/thing', ...options });

/**
 * A logger that records warnings. The documented contract (docs/observability.md): one `warn` for
 * each retry, logged as its wait starts; the tests wait for that call, whatever its wording.
 */
function warnings(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const ignore = (): void => undefined;
  return { lines, logger: { debug: ignore, info: ignore, warn: (message: string) => void lines.push(message), error: ignore } };
}

/** Real turns of the event loop until `condition` holds (whatever clock is faked). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('timeouts', () => {
  it('fails an attempt that takes longer than timeoutMs with TimeoutError', async () => {
    t.server.on(THING, { hang: true });
    const error = await getThing({ maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', timeoutMs: 200 });
    expect((error as TimeoutError).message).toBe('GET /api/v1.1/thing timed out after 1 attempt of 200 ms each');
  });

  it('names the route, the attempts made and the per-attempt timeout once retries are spent', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    t.server.on(THING, { hang: true });
    const error = await getThing({ maxRetries: 2, timeoutMs: 50 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(t.server.requestsTo(THING)).toHaveLength(3);
    expect((error as TimeoutError).message).toBe('GET /api/v1.1/thing timed out after 3 attempts of 50 ms each');
  });

  it("times each attempt from its own start: a finished attempt's timer never cuts the next one", async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    // Attempt 1 fails after 600 ms; attempt 2 answers 800 ms later, past attempt 1's 1,000 ms but within its own.
    t.server.on(THING, [
      { ...fail(503, 'INTERNAL_ERROR'), delayMs: 600 },
      { ...ok(1), delayMs: 800 },
    ]);
    await expect(getThing({ maxRetries: 1, timeoutMs: 1000 })).resolves.toBe(1);
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });

  it('takes a per-call timeoutMs over the client default', async () => {
    t.server.on(THING, { status: 200, json: { success: true, data: 1 }, delayMs: 400 });
    await expect(getThing({ maxRetries: 0, timeoutMs: 1000 })).resolves.toBe(1);
    await expect(getThing({ maxRetries: 0 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it('fails at once with the RateLimitError when a Retry-After under maxServerWaitMs would end past the deadline', async () => {
    // Deadline: 200 ms × 2 attempts + 60 s; the ceiling allows 120 s, the deadline does not.
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '90' } }), ok(1)]);
    const client = await t.connect({ maxServerWaitMs: 200_000, rateLimit: false });
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing', maxRetries: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(90);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it("sends nothing once the call's deadline has passed: a 401 replay after a re-authentication that outlasted it fails unsent", async () => {
    // The monotonic clock runs with real time, and jumps past the deadline during the re-authentication.
    vi.useFakeTimers({ toFake: ['performance'], shouldAdvanceTime: true });
    t.server.on(THING, fail(401, 'UNAUTHORIZED'));
    t.server.on(TOKEN_ROUTE, (_request, count) => {
      if (count === 2) vi.advanceTimersByTime(10 * 60_000);
      return tokenAnswer();
    });
    const error = await getThing({ maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true, mayHaveSucceeded: false });
    expect((error as Error).message).toBe('GET /api/v1.1/thing ran past its deadline');
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it("sends nothing when an attempt falls due exactly at the call's deadline: no time is left to wait for its answer", async () => {
    // The monotonic clock stands still but for the jump: the 401 replay is due on the deadline itself.
    vi.useFakeTimers({ toFake: ['performance'] });
    t.server.on(THING, fail(401, 'UNAUTHORIZED'));
    t.server.on(TOKEN_ROUTE, (_request, count) => {
      if (count === 2) vi.advanceTimersByTime(1000 + DEADLINE_SLACK_MS);
      return tokenAnswer();
    });
    const error = await getThing({ maxRetries: 0, timeoutMs: 1000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true });
    expect((error as Error).message).toBe('GET /api/v1.1/thing ran past its deadline');
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it("cuts the last attempt's timeout to what is left of the call's deadline, and says so", async () => {
    vi.useFakeTimers({ toFake: ['performance'], shouldAdvanceTime: true });
    t.server.on(THING, [fail(401, 'UNAUTHORIZED'), { hang: true }]);
    // Deadline: one attempt of 1,000 ms plus the slack; the re-authentication ends 600 ms before it.
    t.server.on(TOKEN_ROUTE, (_request, count) => {
      if (count === 2) vi.advanceTimersByTime(1000 + DEADLINE_SLACK_MS - 600);
      return tokenAnswer();
    });
    const error = await getThing({ maxRetries: 0, timeoutMs: 1000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    const { timeoutMs, message } = error as TimeoutError;
    expect(timeoutMs).toBeGreaterThan(0);
    expect(timeoutMs).toBeLessThanOrEqual(600);
    expect(message).toBe(`GET /api/v1.1/thing timed out after 2 attempts of 1000 ms each (the last cut to ${timeoutMs} ms by the call's deadline)`);
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });

  it('does not start a Retry-After wait that would end exactly at the deadline: the retry could not be sent', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    installFakeClock();
    // Deadline: 1,000 ms × 2 attempts + 60 s = 62 s from the first send; the fake clock stands still meanwhile.
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': String((2000 + DEADLINE_SLACK_MS) / 1000) } }), ok(1)]);
    const client = await t.connect({ maxServerWaitMs: 200_000, rateLimit: false });
    const pending = client.request({ method: 'GET', path: '/api/v1.1/thing', maxRetries: 1, timeoutMs: 1000 }).catch((caught: unknown) => caught);
    await until(() => t.server.requestsTo(THING).length === 1);
    await vi.advanceTimersByTimeAsync(2000 + DEADLINE_SLACK_MS);
    expect(await pending).toBeInstanceOf(RateLimitError);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('does not start a Retry-After wait that would end past the overall deadline', async () => {
    // Deadline: 200 ms × 2 attempts + 60 s; a 120 s Retry-After cannot fit.
    t.server.on(THING, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '120' } }));
    const error = await getThing({ maxRetries: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('cancellation', () => {
  it.each([
    ["a 429's Retry-After wait", fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '5' } })],
    ['an exponential backoff wait after a 503', fail(503, 'INTERNAL_ERROR')],
  ])('rejects at once with the signal reason when aborted during %s, and sends nothing more', async (_wait, reply) => {
    // The jittered backoff before the first retry is random below 500 ms: pin it near the top.
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    installFakeClock();
    const log = warnings();
    await t.connect({ logger: log.logger });
    t.server.on(THING, reply);
    const controller = new AbortController();
    const pending = getThing({ signal: controller.signal });
    await until(() => log.lines.length > 0);
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    expect(await settlesAtOnce(pending)).toBe(true);
    await expect(pending).rejects.toBe(reason);
    // Past the end of either wait: nothing more was sent.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('rejects at once when aborted while waiting for the token exchange', async () => {
    t.server.on('POST /api/v1.1/auth/token', { ...tokenAnswer(), delayMs: 2000 });
    const controller = new AbortController();
    const pending = getThing({ signal: controller.signal });
    while (t.server.exchanges === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await settlesAtOnce(pending)).toBe(true);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(t.server.requestsTo(THING)).toHaveLength(0);
  });

  it('cuts a request in flight and does not retry it', async () => {
    t.server.on(THING, { hang: true });
    await t.connect({ timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = getThing({ signal: controller.signal });
    while (t.server.requestsTo(THING).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('AbortError');
    // An aborted call has no retry left to send: any would have been armed before it settled.
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    t.server.on(THING, ok(1));
    await expect(getThing({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(t.server.requests).toHaveLength(0);
  });

  it('rejects a call waiting for a rate-limit slot when aborted', async () => {
    t.server.on(THING, ok(1));
    installFakeClock();
    await t.connect({ rateLimit: { account: { limit: 2, windowMs: 10_000 } } });
    await getThing();
    const controller = new AbortController();
    const waiting = getThing({ signal: controller.signal });
    await vi.advanceTimersByTimeAsync(50);
    controller.abort();
    expect(await settlesAtOnce(waiting)).toBe(true);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    // The token exchange and the first call used the two slots.
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('takes one signal shared by 30 calls at once without a listener-leak warning, and leaves a limit the caller set', async () => {
    t.server.on(THING, { status: 200, json: { success: true, data: 1 }, delayMs: 20 });
    const warned: string[] = [];
    const onWarning = (warning: Error): void => void warned.push(warning.name);
    process.on('warning', onWarning);
    try {
      const shared = new AbortController();
      expect(await Promise.all(Array.from({ length: 30 }, () => getThing({ signal: shared.signal })))).toEqual(Array(30).fill(1));
      const limited = new AbortController();
      setMaxListeners(50, limited.signal);
      await Promise.all(Array.from({ length: 3 }, () => getThing({ signal: limited.signal })));
      expect(getMaxListeners(limited.signal)).toBe(50);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warned.filter((name) => name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
  it('announces no retry for a call aborted with a retryable failure as its reason (a fan-out cancelling its siblings)', async () => {
    const log = warnings();
    await t.connect({ logger: log.logger });
    t.server.on(THING, { hang: true });
    t.server.on('GET /api/v1.1/other', fail(503, 'INTERNAL_ERROR'));
    const controller = new AbortController();
    const sibling = getThing({ signal: controller.signal, timeoutMs: 10_000 });
    sibling.catch(() => undefined);
    await until(() => t.server.requestsTo(THING).length === 1);
    const failure = await t.client.request({ method: 'GET', path: '/api/v1.1/other', maxRetries: 0 }).catch((caught: unknown) => caught);
    controller.abort(failure);
    await expect(sibling).rejects.toBe(failure);
    expect(log.lines).toEqual([]);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it("leaves no listener on the caller's signal once its calls have ended", async () => {
    // A long-lived signal (a worker's shutdown, a request's lifetime) goes with many calls: none may stay attached to it.
    t.server.on(THING, [ok(1), fail(404, 'NOT_FOUND'), { hang: true }]);
    const controller = new AbortController();
    await getThing({ signal: controller.signal });
    await getThing({ signal: controller.signal }).catch(() => undefined);
    await getThing({ signal: controller.signal, maxRetries: 0 }).catch(() => undefined);
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });
});

describe('close()', () => {
  it('rejects calls made after close()', async () => {
    await t.client.close();
    await expect(getThing()).rejects.toBeInstanceOf(ClientClosedError);
  });
});

describe('destroy() during a call', () => {
  it('rejects a call waiting out a Retry-After at once, without sending it again', async () => {
    t.server.on(THING, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '30' } }));
    installFakeClock();
    const log = warnings();
    await t.connect({ logger: log.logger });
    const outcome = getThing().then(
      () => undefined,
      (error: unknown) => error,
    );
    await until(() => log.lines.length > 0);
    await vi.advanceTimersByTimeAsync(50);
    const destroyed = t.client.destroy();
    expect(await settlesAtOnce(outcome)).toBe(true);
    expect(await outcome).toBeInstanceOf(ClientClosedError);
    await destroyed;
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });

  it('rejects a call waiting for a rate-limit slot and does not retry it', async () => {
    t.server.on(THING, ok(1));
    installFakeClock();
    await t.connect({ rateLimit: { account: { limit: 2, windowMs: 10_000 } } });
    await getThing();
    const waiting = getThing();
    const outcome = waiting.then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(50);
    await t.client.destroy();
    expect(await outcome).toBeInstanceOf(ClientClosedError);
    expect(String(await outcome)).toMatch(/destroyed/);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });
});
