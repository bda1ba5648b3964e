/**
 * What one process's RedisRateLimiter asks of Redis, and when: the script runs it makes for a
 * route (admission and settle, lease renewal, pause), what each writes of the process's flight,
 * what it leaves behind once closed, and what it says of an outage. On a real redis-server,
 * mostly on a fake clock (the client's and the test server's; Redis keeps its own), so that no
 * timer of the limiter fires but the ones a test lets pass.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClientClosedError, ConfigurationError, ConnectionError, PartnerClient, RateLimitError, TimeoutError } from '../../src/index.js';
import type { ClientOptions, Logger } from '../../src/index.js';
import { RedisRateLimiter } from '../../src/redis/index.js';
import type { RedisConnection, RedisRateLimiterOptions } from '../../src/redis/index.js';
import { queueTiming } from '../../src/redis/route-queue.js';
import { installFakeClock, outwaitConnections, pendingTimers, realTurns, untilReal } from '../helpers/clock.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { fail, ok, rateLimitHeaders, startTestServer, type TestServer } from '../helpers/server.js';

const THING = 'GET /api/v1.1/thing';
/** A window far longer than any call's deadline: a wait for it fails at once. */
const LONG_WINDOW_MS = 600_000;

let redis: RedisServer;
let store: Redis;
let server: TestServer;
const clients: PartnerClient[] = [];
let namespaces = 0;

beforeAll(async () => {
  redis = await startRedis();
  store = redis.client();
  await store.ping();
});

afterAll(async () => {
  await redis.stop();
});

beforeEach(async () => {
  server = await startTestServer();
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server.close();
});

type Run = 'settle' | 'renew' | 'pause';

/**
 * The shared connection, each script run it answers recorded by kind (and each one sent, in
 * `attempts`): a pause names one key (its `…:pause`), a renewal begins with a gate's `…:alive`, a
 * settle with its `…:flight`. `down` makes every command fail as a dropped connection would;
 * `lost` makes each one go unanswered and unexecuted, as on a connection that stalled.
 */
function recording(): { connection: RedisConnection; runs: Run[]; down: { now: boolean }; lost: { now: boolean }; attempts: Run[] } {
  const runs: Run[] = [];
  const attempts: Run[] = [];
  const down = { now: false };
  const lost = { now: false };
  const kind = (numkeys: number, first: unknown): Run => (numkeys === 1 ? 'pause' : String(first).endsWith(':alive') ? 'renew' : 'settle');
  const answered = <T>(run: Run, command: () => Promise<T>, retried = false): Promise<T> => {
    // EVAL after EVALSHA's NOSCRIPT is the same run sent again.
    if (!retried) attempts.push(run);
    if (down.now) return Promise.reject(new Error('Connection is closed.'));
    if (lost.now) return new Promise<T>(() => {});
    return command().then((result) => {
      runs.push(run);
      return result;
    });
  };
  return {
    runs,
    attempts,
    down,
    lost,
    connection: {
      evalsha: (sha1, numkeys, ...args) => answered(kind(numkeys, args[0]), () => store.evalsha(sha1, numkeys, ...args)),
      eval: (script, numkeys, ...args) => answered(kind(numkeys, args[0]), () => store.eval(script, numkeys, ...args), true),
      set: (key, value, px, ms, nx) => store.set(key, value, px, ms, nx),
      del: (...keys) => store.del(...keys),
    },
  };
}

/** A logger that keeps what it is told, level, message and meta. */
function logged(): Logger & { lines: Array<[string, string, unknown]> } {
  const lines: Array<[string, string, unknown]> = [];
  return {
    lines,
    debug: () => {},
    info: (message, meta) => lines.push(['info', message, meta]),
    warn: (message, meta) => lines.push(['warn', message, meta]),
    error: (message, meta) => lines.push(['error', message, meta]),
  };
}

/** One process of a fleet calling the test server (no token exchange: `auth: false`). */
function fleetProcess(limits: Omit<RedisRateLimiterOptions, 'redis'>, options: ClientOptions = {}, connection = recording()) {
  const limiter = new RedisRateLimiter({ redis: connection.connection, ...limits });
  const client = new PartnerClient({ baseUrl: server.url, key: 'k', secret: 's', maxRetries: 0, rateLimit: limiter, ...options });
  clients.push(client);
  const thing = () => client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false });
  return { client, limiter, thing, ...connection };
}

/**
 * The account gate's `…:flight` of the namespace, as `field=count` for each count above zero: per
 * process and route, the requests admitted and not settled yet and the slots held ahead, as the
 * process's last run wrote them (docs/fleet.md, the keys table).
 */
async function flight(namespace: string): Promise<string[]> {
  const [key] = await store.keys(`${namespace}:*:account:flight`);
  if (key === undefined) return [];
  return Object.entries(await store.hgetall(key)).flatMap(([field, count]) => (Number(count) > 0 ? [`${field}=${count}`] : []));
}

/** Polls `condition` every 5 ms on the real clock until it holds (the test's timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** What a fetch throws when the connection is refused: proof that the request never left. */
function refusedConnection(): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
}

/** The real turns of the event loop a script run needs to be answered, the fake clock standing still. */
const RUN_TURNS = 50;

describe('the timing of a route queue', () => {
  it('settles within 10 ms (an eighth of a shorter window) and hands slots ahead out for 10 ms (a tenth)', () => {
    expect(queueTiming(60_000)).toEqual({ settleDelayMs: 10, spareLifeMs: 10, aheadMs: 25 });
    expect(queueTiming(40)).toEqual({ settleDelayMs: 5, spareLifeMs: 4, aheadMs: 14 });
  });
});

describe('RedisRateLimiter on a fake clock: the runs it makes', () => {
  it('holds an answer in its flight until the settle delay, then settles it with the slots ahead it did not use', async () => {
    installFakeClock();
    server.on(THING, ok(1));
    const namespace = `settle-${namespaces++}`;
    const one = fleetProcess({ namespace, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } });
    await one.thing();
    // The run that admitted the call took slots ahead; nothing else has run, the clock standing still.
    expect(one.runs).toEqual(['settle']);
    await realTurns(RUN_TURNS);
    expect(one.runs).toEqual(['settle']);
    // The request, answered, and the sixteen slots ahead.
    expect(await flight(namespace)).toEqual([expect.stringMatching(/=17$/)]);
    // 9 ms on: still neither settled nor given back.
    await vi.advanceTimersByTimeAsync(9);
    await realTurns(RUN_TURNS);
    expect(one.runs).toEqual(['settle']);
    // At 10 ms, one run settles the answer and gives the slots ahead back.
    await vi.advanceTimersByTimeAsync(1);
    await untilReal(() => one.runs.length > 1);
    await realTurns(RUN_TURNS);
    expect(one.runs).toEqual(['settle', 'settle']);
    expect(await flight(namespace)).toEqual([]);
    // Nothing is left to run: no timer of the limiter is left either.
    await outwaitConnections(15_000);
    expect(one.runs).toEqual(['settle', 'settle']);
    expect(pendingTimers()).toEqual([]);
  });

  it('hands the slots it took ahead out without asking Redis, and asks for more when four are left', async () => {
    installFakeClock();
    server.on(THING, ok(1));
    const one = fleetProcess({ namespace: `ahead-${namespaces++}`, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } });
    // One call asks: admitted with sixteen slots ahead (a sixteenth of 1,000 is more).
    await one.thing();
    expect(one.runs).toEqual(['settle']);
    // Eleven of them are handed out with no run.
    for (let i = 0; i < 11; i++) await one.thing();
    expect(one.runs).toEqual(['settle']);
    // The twelfth leaves four: one run asks for sixteen more, before any call needs them.
    await one.thing();
    await untilReal(() => one.runs.length > 1);
    expect(one.runs).toEqual(['settle', 'settle']);
    for (let i = 0; i < 16; i++) await one.thing();
    await untilReal(() => one.runs.length > 2);
    await realTurns(RUN_TURNS);
    expect(one.runs).toEqual(['settle', 'settle', 'settle']);
    expect(server.requestsTo(THING)).toHaveLength(29);
  });

  it('asks Redis for a burst of waiting calls together, 64 a run and no slot ahead, and settles 64 answers at once', async () => {
    installFakeClock();
    // No answer is written until all hundred requests have arrived.
    let arrived = 0;
    let allArrived: () => void = () => {};
    const all = new Promise<void>((resolve) => (allArrived = resolve));
    server.on(THING, async () => {
      if (++arrived === 100) allArrived();
      await all;
      return ok(1);
    });
    const namespace = `burst-${namespaces++}`;
    const one = fleetProcess({ namespace, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } });
    await Promise.all(Array.from({ length: 100 }, () => one.thing()));
    // Two runs admit the hundred (64, then 36); a third settles the first 64 answers as soon as
    // they are in. The other 36 wait for the settle delay, which the clock has not let pass.
    await realTurns(RUN_TURNS);
    expect(one.runs).toEqual(['settle', 'settle', 'settle']);
    expect(await flight(namespace)).toEqual([expect.stringMatching(/=36$/)]);
    // 10 ms on, one run settles them.
    await vi.advanceTimersByTimeAsync(10);
    await untilReal(async () => (await flight(namespace)).length === 0);
    expect(await flight(namespace)).toEqual([]);
    expect(one.runs).toEqual(['settle', 'settle', 'settle', 'settle']);
  });

  it('gives a slot whose request never left back to Redis within the settle delay', async () => {
    installFakeClock();
    const namespace = `given-back-${namespaces++}`;
    // A limit of ten: no slot is taken ahead (a sixteenth of it is less than one).
    const one = fleetProcess({ namespace, account: { limit: 10, windowMs: LONG_WINDOW_MS } }, { fetch: () => Promise.reject(refusedConnection()) });
    const refused = await one.thing().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(refused).toMatchObject({ requestNotSent: true });
    expect(await flight(namespace)).toEqual([expect.stringMatching(/=1$/)]);
    await vi.advanceTimersByTimeAsync(10);
    await untilReal(async () => (await flight(namespace)).length === 0);
    expect(await flight(namespace)).toEqual([]);
    expect(one.runs).toEqual(['settle', 'settle']);
  });

  it('has a call waiting for the window ask again at once when a slot admitted is given back', async () => {
    installFakeClock();
    server.on(THING, ok(1));
    const namespace = `wake-${namespaces++}`;
    let refuseFirst: (error: Error) => void = () => {};
    let calls = 0;
    const fetchSecond: typeof fetch = (input, init) =>
      ++calls === 1 ? new Promise<Response>((_, reject) => (refuseFirst = reject)) : fetch(input, init);
    const one = fleetProcess({ namespace, account: { limit: 1, windowMs: 2_000 } }, { fetch: fetchSecond, timeoutMs: 10_000 });
    const first = one.thing().catch((error: unknown) => error);
    await untilReal(() => calls === 1);
    // The second is refused the window's only slot, and sleeps on it.
    const second = one.thing();
    await untilReal(() => one.runs.length === 2);
    expect(server.requestsTo(THING)).toHaveLength(0);
    // The first's request never left: its slot goes to the second in one run, the clock standing still.
    refuseFirst(refusedConnection());
    expect(await first).toMatchObject({ requestNotSent: true });
    await untilReal(() => server.requestsTo(THING).length === 1);
    expect(server.requestsTo(THING)).toHaveLength(1);
    await expect(second).resolves.toBe(1);
    expect(one.runs).toEqual(['settle', 'settle', 'settle']);
  });

  it('hands none of the slots ahead out after a 429 paused the route', async () => {
    server.on(THING, [ok(1), fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok(3)]);
    const one = fleetProcess({ namespace: `paused-${namespaces++}`, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } }, { timeoutMs: 10_000 });
    await one.thing();
    // On a slot taken ahead (handed out for 10 ms), answered 429 for a second: the slots ahead go back at once.
    await expect(one.thing()).rejects.toBeInstanceOf(RateLimitError);
    await until(() => one.runs.includes('pause'));
    // The next call is not sent on one of them: it waits for the pause.
    await expect(one.thing()).resolves.toBe(3);
    const [, paused, next] = server.requestsTo(THING);
    expect((next?.at ?? 0) - (paused?.answeredAt ?? Number.NaN)).toBeGreaterThanOrEqual(900);
  });

  it('settles an answer that says the window is full at once, and hands none of the slots ahead out after it', async () => {
    installFakeClock();
    const closing = { connection: 'close' };
    server.on(THING, [ok(1, { headers: closing }), ok(2, { headers: { ...closing, ...rateLimitHeaders(1_000, 0, 600) } })]);
    const namespace = `full-${namespaces++}`;
    const one = fleetProcess({ namespace, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } }, { timeoutMs: 1_000, maxServerWaitMs: 600_000 });
    await one.thing();
    // On a slot taken ahead; the answer says the window is spent.
    await one.thing();
    expect(one.runs).toEqual(['settle']);
    // Settled, and the slots ahead given back, with no timer let pass.
    await untilReal(async () => (await flight(namespace)).length === 0);
    expect(one.runs).toEqual(['settle', 'settle']);
    await realTurns(RUN_TURNS);
    // The first answer's settle timer and the slots' timer were stopped, not left to fire: what is
    // left is the lease renewal's interval, which stops at its next tick.
    // (The connection is closed after each answer; undici's own timer wheel, `onTick`, may still turn.)
    expect(pendingTimers().filter((timer) => timer.callback !== 'onTick')).toEqual([
      { callback: expect.stringContaining('renew'), delayMs: expect.any(Number) },
    ]);
    // The next call is not handed a slot ahead: it would wait for the window's end, past its deadline.
    const refused = await one.thing().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TimeoutError);
    expect(refused).toMatchObject({ requestNotSent: true });
    expect(server.requestsTo(THING)).toHaveLength(2);
  });
});

describe('RedisRateLimiter: the lease of requests in flight', () => {
  const renewals = (runs: Run[]) => runs.filter((run) => run === 'renew').length;

  it('renews the lease of a request in flight every quarter of the window, and stops once it is answered', async () => {
    // Answered a second after it arrives: ten quarters of a window of 400 ms.
    server.on(THING, ok(1, { delayMs: 1_000 }));
    const one = fleetProcess({ namespace: `renew-${namespaces++}`, account: { limit: 1_000, windowMs: 400 } }, { timeoutMs: 5_000 });
    await one.thing();
    const renewed = renewals(one.runs);
    expect(renewed).toBeGreaterThanOrEqual(5);
    expect(renewed).toBeLessThanOrEqual(15);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(renewals(one.runs)).toBeLessThanOrEqual(renewed + 1);
  });

  it('renews the lease of a request on a slot taken ahead too', async () => {
    server.on(THING, [ok(1), ok(2, { delayMs: 1_000 })]);
    const one = fleetProcess({ namespace: `renew-ahead-${namespaces++}`, account: { limit: 1_000, windowMs: 400 } }, { timeoutMs: 5_000 });
    await one.thing();
    // The second call is handed a slot ahead (taken by the first's run, handed out for 10 ms), and is in flight for a second.
    await one.thing();
    expect(renewals(one.runs)).toBeGreaterThanOrEqual(5);
  });

  it('renews nothing once closed, though a request is still in flight', async () => {
    server.on(THING, ok(1, { delayMs: 1_000 }));
    const one = fleetProcess({ namespace: `renew-closed-${namespaces++}`, account: { limit: 1_000, windowMs: 400 } }, { timeoutMs: 5_000 });
    const call = one.thing();
    await until(() => renewals(one.runs) >= 2);
    one.limiter.close();
    const renewed = renewals(one.runs);
    await call;
    // A renewal sent just before the close may still be answered.
    expect(renewals(one.runs)).toBeLessThanOrEqual(renewed + 1);
  });
});

describe("RedisRateLimiter: a process's flight, as Redis counts it", () => {
  it('counts the requests a process has in flight when it settles one answered: another process is refused the window', async () => {
    // Three requests are held by the server until the test lets them go; a fourth is answered at once.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    server.on(THING, async () => {
      if (++calls <= 3) await held;
      return ok(calls);
    });
    const namespace = `flight-${namespaces++}`;
    const limits = { namespace, account: { limit: 4, windowMs: LONG_WINDOW_MS } };
    const first = fleetProcess(limits);
    const slow = Promise.all([first.thing(), first.thing(), first.thing()]);
    await until(() => server.requestsTo(THING).length === 3);
    await first.thing();
    // The fourth answer is settled (the runs: the three admitted, the fourth, the settle); the three in flight still count.
    await until(() => first.runs.length >= 3);
    expect(await flight(namespace)).toEqual([expect.stringMatching(/=3$/)]);
    const second = fleetProcess(limits, { timeoutMs: 1_000 });
    const refused = await second.thing().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TimeoutError);
    expect(refused).toMatchObject({ requestNotSent: true });
    release();
    await slow;
    expect(server.requestsTo(THING)).toHaveLength(4);
  });
});

describe('RedisRateLimiter after a run it gave up on', () => {
  /** The account gate's `…:done` of the namespace: settled requests still counted (its `total`). */
  async function done(namespace: string): Promise<number> {
    const [key] = await store.keys(`${namespace}:*:account:done`);
    return key === undefined ? 0 : Number((await store.hget(key, 'total')) ?? 0);
  }

  it('sends the answers it carried again at once, then every second until Redis answers, counted once', async () => {
    installFakeClock();
    server.on(THING, ok(1));
    const namespace = `given-up-${namespaces++}`;
    const one = fleetProcess(
      { namespace, account: { limit: 10, windowMs: LONG_WINDOW_MS }, commandTimeoutMs: 100, onStoreError: 'fail-closed' },
      { logger: logged() },
    );
    await one.thing();
    expect(one.attempts).toEqual(['settle']);
    one.lost.now = true;
    // The answer's settle run, 10 ms on, is lost; given up on 100 ms later, it is sent again at
    // once (on the fake clock, a timer of no delay set while timers fire is due a millisecond on).
    await vi.advanceTimersByTimeAsync(10);
    await untilReal(() => one.attempts.length >= 2);
    expect(one.attempts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(101);
    await untilReal(() => one.attempts.length >= 3);
    expect(one.attempts).toHaveLength(3);
    // That one lost too, the next goes a second after it was given up on, not sooner.
    await vi.advanceTimersByTimeAsync(100 + 999);
    await realTurns(RUN_TURNS);
    expect(one.attempts).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    await untilReal(() => one.attempts.length >= 4);
    expect(one.attempts).toHaveLength(4);
    // Redis answers again: the run after the next second carries the answer, and Redis counts it once.
    one.lost.now = false;
    await vi.advanceTimersByTimeAsync(100 + 1_000);
    await untilReal(() => one.attempts.length >= 5);
    expect(one.attempts).toHaveLength(5);
    await untilReal(() => one.runs.length === 2);
    expect(await flight(namespace)).toEqual([]);
    expect(await done(namespace)).toBe(1);
    // Nothing is left to correct: no more runs, no timer.
    await outwaitConnections(15_000);
    expect(one.attempts).toHaveLength(5);
    expect(pendingTimers()).toEqual([]);
  });

  it("sends a correcting run at once after the route's very first run was given up on", async () => {
    installFakeClock();
    server.on(THING, ok(1));
    const one = fleetProcess(
      {
        namespace: `first-lost-${namespaces++}`,
        account: { limit: 10, windowMs: LONG_WINDOW_MS },
        commandTimeoutMs: 100,
        onStoreError: 'fail-closed',
      },
      { logger: logged() },
    );
    one.lost.now = true;
    const call = one.thing().catch((error: unknown) => error);
    await untilReal(() => one.attempts.length === 1);
    // Given up on, the call fails (fail-closed), and Redis, which may still execute the lost run,
    // is sent the process's count for the route at once.
    await vi.advanceTimersByTimeAsync(101);
    expect(await call).toBeInstanceOf(ConnectionError);
    await untilReal(() => one.attempts.length >= 2);
    expect(one.attempts).toHaveLength(2);
    expect(server.requestsTo(THING)).toHaveLength(0);
  });

  it('stops correcting once closed', async () => {
    installFakeClock();
    server.on(THING, ok(1, { headers: { connection: 'close' } }));
    const namespace = `given-up-closed-${namespaces++}`;
    const one = fleetProcess(
      { namespace, account: { limit: 10, windowMs: LONG_WINDOW_MS }, commandTimeoutMs: 100, onStoreError: 'fail-closed' },
      { logger: logged() },
    );
    await one.thing();
    one.lost.now = true;
    await vi.advanceTimersByTimeAsync(10 + 101);
    await untilReal(() => one.attempts.length >= 3);
    expect(one.attempts).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(100);
    // A correcting run is due a second on; the close sends one run at once, and no other after it.
    one.limiter.close();
    await realTurns(5);
    expect(one.attempts).toHaveLength(4);
    // Given up on in turn, that run leaves no timer behind. (The connection to the server is closed
    // after each answer; undici's own timer wheel, `onTick`, may still turn a while.)
    await vi.advanceTimersByTimeAsync(101);
    expect(pendingTimers().filter((timer) => timer.callback !== 'onTick')).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_000);
    await realTurns(RUN_TURNS);
    expect(one.attempts).toHaveLength(4);
  });
});

describe('RedisRateLimiter closed', () => {
  it('refuses a call after close(), unsent, with ClientClosedError', async () => {
    server.on(THING, ok(1));
    const one = fleetProcess({ namespace: `closed-${namespaces++}`, account: { limit: 10, windowMs: 60_000 } }, { timeoutMs: 1_000 });
    await one.thing();
    one.limiter.close();
    const refused = await one.thing().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClientClosedError);
    expect(refused).toMatchObject({ requestNotSent: true });
    expect(server.requestsTo(THING)).toHaveLength(1);
  });

  it('ends a call waiting for the window with ClientClosedError when closed, unsent, and leaves no timer', async () => {
    installFakeClock();
    server.on(THING, ok(1, { headers: { connection: 'close' } }));
    const one = fleetProcess({ namespace: `close-waiting-${namespaces++}`, account: { limit: 1, windowMs: 2_000 } }, { timeoutMs: 10_000 });
    await one.thing();
    // The window's only slot is used: the second call sleeps until Redis may have one.
    const waiting = one.thing().catch((error: unknown) => error);
    await untilReal(() => one.runs.length === 2);
    one.limiter.close();
    const error = await waiting;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toMatchObject({ requestNotSent: true });
    await realTurns(RUN_TURNS);
    expect(pendingTimers().filter((timer) => timer.callback !== 'onTick')).toEqual([]);
    expect(server.requestsTo(THING)).toHaveLength(1);
  });

  it('sends Redis its unsettled answers and the slots it holds ahead when closed, at once, and keeps no timer', async () => {
    installFakeClock();
    // The connection to the server is closed after each answer: no keep-alive timer of its own.
    server.on(THING, ok(1, { headers: { connection: 'close' } }));
    const namespace = `close-flush-${namespaces++}`;
    const one = fleetProcess({ namespace, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } });
    await one.thing();
    await one.thing();
    expect(await flight(namespace)).toEqual([expect.stringMatching(/=17$/)]);
    one.limiter.close();
    // No timer is let pass: the close's own run settles the answers and gives the slots ahead back.
    await untilReal(async () => (await flight(namespace)).length === 0);
    expect(one.runs).toEqual(['settle', 'settle']);
    await realTurns(RUN_TURNS);
    // The settle and the slots' timers are stopped by the close, not left to fire (undici's own
    // timer wheel, `onTick`, may still turn a while).
    expect(pendingTimers().filter((timer) => timer.callback !== 'onTick')).toEqual([]);
    await outwaitConnections(15_000);
    expect(one.runs).toEqual(['settle', 'settle']);
    expect(pendingTimers()).toEqual([]);
  });
});

describe('RedisRateLimiter when its store fails', () => {
  it('fail-open: says so once at warn with the reason, limits in memory for a second, then says Redis answers again', async () => {
    server.on(THING, ok(1));
    const logger = logged();
    const one = fleetProcess(
      { namespace: `outage-${namespaces++}`, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } },
      { logger, logLevel: 'info' },
    );
    one.down.now = true;
    await Promise.all([one.thing(), one.thing()]);
    expect(logger.lines).toEqual([
      [
        'warn',
        'rate limiter: Redis is unavailable (Connection is closed.); each process limits itself in memory until Redis answers again',
        { onStoreError: 'fail-open' },
      ],
    ]);
    one.down.now = false;
    // Within the second, Redis is not asked.
    await one.thing();
    expect(one.runs).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    await one.thing();
    expect(one.runs).not.toEqual([]);
    expect(logger.lines.slice(1)).toEqual([['info', 'rate limiter: Redis answers again; the fleet shares its limits again', undefined]]);
    expect(server.requestsTo(THING)).toHaveLength(4);
  });

  it('fail-open without a logger: says so once on the console, named as the package', async () => {
    server.on(THING, ok(1));
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const one = fleetProcess({ namespace: `console-${namespaces++}`, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } });
      one.down.now = true;
      await Promise.all([one.thing(), one.thing()]);
      expect(warned.mock.calls).toEqual([
        [
          'mobile-partner-sdk: rate limiter: Redis is unavailable (Connection is closed.); each process limits itself in memory until Redis answers again',
        ],
      ]);
      // Back a second later: nothing more to say without a logger, and Redis is used again.
      one.down.now = false;
      await new Promise((resolve) => setTimeout(resolve, 1_050));
      await one.thing();
      await one.thing();
      expect(one.runs).not.toEqual([]);
      expect(warned).toHaveBeenCalledTimes(1);
    } finally {
      warned.mockRestore();
    }
  });

  it('fail-closed: ends the waiting calls with the reason, unsent, and says nothing', async () => {
    server.on(THING, ok(1));
    const logger = logged();
    const one = fleetProcess(
      { namespace: `fail-closed-${namespaces++}`, account: { limit: 1_000, windowMs: LONG_WINDOW_MS }, onStoreError: 'fail-closed' },
      { logger },
    );
    one.down.now = true;
    const [a, b] = await Promise.all([one.thing().catch((error: unknown) => error), one.thing().catch((error: unknown) => error)]);
    for (const error of [a, b]) {
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ requestNotSent: true, message: expect.stringContaining('Connection is closed.') });
    }
    expect(logger.lines).toEqual([]);
    expect(server.requestsTo(THING)).toHaveLength(0);
  });

  it('fail-open: keeps the limits in memory while Redis is away', async () => {
    server.on(THING, ok(1));
    const one = fleetProcess(
      { namespace: `memory-${namespaces++}`, account: { limit: 2, windowMs: LONG_WINDOW_MS } },
      { logger: logged(), timeoutMs: 1_000 },
    );
    one.down.now = true;
    await one.thing();
    await one.thing();
    const refused = await one.thing().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TimeoutError);
    expect(refused).toMatchObject({ requestNotSent: true });
    expect(server.requestsTo(THING)).toHaveLength(2);
  });

  it('fail-open: a lease renewal that fails is an outage too, said at warn while the request is in flight', async () => {
    server.on(THING, ok(1, { delayMs: 1_000 }));
    const logger = logged();
    const one = fleetProcess({ namespace: `renew-fails-${namespaces++}`, account: { limit: 1_000, windowMs: 400 } }, { logger });
    let answered = false;
    const call = one.thing().finally(() => (answered = true));
    // In flight, the slots taken ahead given back (10 ms on): only renewals go to Redis now.
    await until(() => server.requestsTo(THING).length === 1 && one.runs.length === 2);
    one.down.now = true;
    // The next renewal (every 100 ms) meets the dead store, long before the answer's settle would.
    await until(() => logger.lines.length > 0);
    expect(answered).toBe(false);
    expect(logger.lines).toEqual([
      ['warn', expect.stringMatching(/^rate limiter: Redis is unavailable \(Connection is closed\.\)/), { onStoreError: 'fail-open' }],
    ]);
    await call;
  });

  it('fail-open: gives the in-memory slot of a request that never left back at once', async () => {
    server.on(THING, ok(1));
    let calls = 0;
    const refuseFirst: typeof fetch = (input, init) => (++calls === 1 ? Promise.reject(refusedConnection()) : fetch(input, init));
    const one = fleetProcess(
      { namespace: `local-given-back-${namespaces++}`, account: { limit: 1, windowMs: LONG_WINDOW_MS } },
      { logger: logged(), fetch: refuseFirst, timeoutMs: 1_000 },
    );
    one.down.now = true;
    await expect(one.thing()).rejects.toMatchObject({ requestNotSent: true });
    // The window's only slot, given back: the next call has it.
    await expect(one.thing()).resolves.toBe(1);
  });

  it('fail-open: releases an in-memory slot a call waited for, so the window after it is free again', async () => {
    server.on(THING, ok(1));
    const one = fleetProcess(
      { namespace: `local-waited-${namespaces++}`, account: { limit: 1, windowMs: 300 } },
      { logger: logged(), timeoutMs: 5_000 },
    );
    one.down.now = true;
    // One a window: the second waits for the first's window, the third for the second's.
    await Promise.all([one.thing(), one.thing(), one.thing()]);
    expect(server.requestsTo(THING)).toHaveLength(3);
  });

  it('fail-open: says Redis answers again as soon as a lease renewal is answered', async () => {
    server.on(THING, ok(1, { delayMs: 1_000 }));
    const logger = logged();
    const one = fleetProcess({ namespace: `renew-back-${namespaces++}`, account: { limit: 1_000, windowMs: 400 } }, { logger, logLevel: 'info' });
    let answered = false;
    const call = one.thing().finally(() => (answered = true));
    await until(() => server.requestsTo(THING).length === 1 && one.runs.length === 2);
    one.down.now = true;
    await until(() => logger.lines.length > 0);
    one.down.now = false;
    // The next renewal, 100 ms on, is answered: back to the fleet's limits before the answer comes.
    await until(() => logger.lines.length > 1);
    expect(answered).toBe(false);
    expect(logger.lines.map(([level]) => level)).toEqual(['warn', 'info']);
    await call;
  });

  it('says nothing of a store that fails after close(): the process is shutting down', async () => {
    installFakeClock();
    server.on(THING, ok(1));
    const logger = logged();
    const one = fleetProcess({ namespace: `closing-${namespaces++}`, account: { limit: 1_000, windowMs: LONG_WINDOW_MS } }, { logger });
    await one.thing();
    // The answer and the slots ahead are still to settle: the close's run meets the dead store.
    one.down.now = true;
    one.limiter.close();
    await realTurns(RUN_TURNS);
    expect(logger.lines).toEqual([]);
  });

  it('fails a call at once with the ConfigurationError a run met, under either policy', async () => {
    server.on(THING, ok(1));
    for (const onStoreError of ['fail-open', 'fail-closed'] as const) {
      const connection = recording();
      connection.connection.evalsha = () => Promise.reject(new ConfigurationError('the store holds another account'));
      const one = fleetProcess({ namespace: `config-${namespaces++}`, account: { limit: 10, windowMs: 60_000 }, onStoreError }, {}, connection);
      const error = await one.thing().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigurationError);
    }
    expect(server.requestsTo(THING)).toHaveLength(0);
  });
});
