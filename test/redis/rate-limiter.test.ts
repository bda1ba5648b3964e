/**
 * RedisRateLimiter against the real sandbox and a real redis-server. Each limiter instance here
 * stands for one process of a fleet: they share nothing but Redis (fleet.test.ts runs the same
 * over child processes).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, ConnectionError, PartnerClient, RateLimitError, TimeoutError } from '../../src/index.js';
import type { ClientOptions, Logger } from '../../src/index.js';
import { RedisRateLimiter } from '../../src/redis/index.js';
import type { RedisRateLimiterOptions } from '../../src/redis/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { installFakeClock } from '../helpers/clock.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { clockWindows, ok, rateLimitHeaders, startTestServer, type TestServer } from '../helpers/server.js';

let redis: RedisServer;
const sandboxes: SandboxHandle[] = [];
const clients: PartnerClient[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  await redis.stop();
});

async function sandbox(rateLimitWindowMs: number): Promise<SandboxHandle> {
  const started = await startSandbox({ port: 0, rateLimitWindowMs });
  sandboxes.push(started);
  return started;
}

let namespaces = 0;

/** A client of `target` with a limiter of its own on the shared Redis: one "process" of the fleet. */
function member(target: SandboxHandle, limiter: Omit<RedisRateLimiterOptions, 'redis'>, options: ClientOptions = {}): PartnerClient {
  const client = new PartnerClient({
    baseUrl: target.url,
    key: target.key,
    secret: target.secret,
    rateLimit: new RedisRateLimiter({ redis: redis.client(), ...limiter }),
    ...options,
  });
  clients.push(client);
  return client;
}

const listSims = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/sims', query: { pageSize: 1 } });

interface Logged {
  path: string;
  status: number | null;
  receivedAt: string;
  forced: unknown;
}

async function sandboxLog(target: SandboxHandle): Promise<Logged[]> {
  return ((await (await fetch(`${target.url}/_sandbox/requests`)).json()) as { requests: Logged[] }).requests;
}

async function throttled(target: SandboxHandle): Promise<number> {
  const stats = (await (await fetch(`${target.url}/_sandbox/stats`)).json()) as { counters: Record<string, number> };
  return stats.counters['rateLimit.throttled'] ?? 0;
}

/** Polls `condition` every 10 ms until it holds (the test's timeout bounds the wait). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * Resolves once no process of `namespace` has requests or slots ahead counted in flight: all
 * settled or given back. No public API says when a process's answers have reached Redis, and a
 * wait by the clock would be a guess on a loaded machine: this reads the `…:account:flight` hash
 * the fleet guide documents (docs/fleet.md, the keys table), nothing of the scripts' internals.
 */
async function flightEmptied(namespace: string): Promise<void> {
  const [flight] = await redis.client().keys(`${namespace}:*:account:flight`);
  await until(async () => Object.keys(await redis.client().hgetall(flight as string)).length === 0);
}

/** A window far longer than any call's deadline (timeoutMs × attempts + 60 s): a wait for it fails at once. */
const LONG_WINDOW_MS = 600_000;

describe('RedisRateLimiter', () => {
  it('keeps three limiters on one account to the account limit together: no 429, no fewer windows than needed', async () => {
    const windowMs = 400;
    const target = await sandbox(windowMs);
    const namespace = `paced-${namespaces++}`;
    const fleet = [0, 1, 2].map(() => member(target, { namespace, account: { limit: 120, windowMs } }));
    // Tokens first, then a fresh sandbox window for the burst.
    await Promise.all(fleet.map(listSims));
    await new Promise((resolve) => setTimeout(resolve, windowMs + 50));
    const before = (await sandboxLog(target)).length;
    const results = await Promise.all(fleet.flatMap((client) => Array.from({ length: 100 }, () => listSims(client))));
    expect(results).toHaveLength(300);
    expect(await throttled(target)).toBe(0);
    // 300 calls at 120 per window need three sandbox windows: the last cannot open before two have passed.
    const burst = (await sandboxLog(target)).slice(before);
    expect(burst).toHaveLength(300);
    const received = burst.map((entry) => Date.parse(entry.receivedAt));
    expect(Math.max(...received) - Math.min(...received)).toBeGreaterThanOrEqual(2 * windowMs);
  });

  it('keeps two accounts on one Redis in windows of their own', async () => {
    const namespace = `accounts-${namespaces++}`;
    const a = await sandbox(LONG_WINDOW_MS);
    const b = await sandbox(LONG_WINDOW_MS);
    const limits = { namespace, account: { limit: 3, windowMs: LONG_WINDOW_MS } };
    const onA = member(a, limits, { maxRetries: 0 });
    const onB = member(b, limits, { maxRetries: 0 });
    // The token exchange takes one slot of each account's three.
    for (let i = 0; i < 2; i++) await listSims(onA);
    const waited = await listSims(onA).catch((error: unknown) => error);
    expect(waited).toBeInstanceOf(TimeoutError);
    expect((waited as TimeoutError).message).toMatch(/rate-limit wait/);
    expect((waited as TimeoutError).requestNotSent).toBe(true);
    // Account B has had none of A's slots taken.
    for (let i = 0; i < 2; i++) await expect(listSims(onB)).resolves.toBeDefined();
  });

  it('refuses to serve two accounts from one limiter, slots taken ahead for the first included: their windows would be mixed', async () => {
    // On a fake clock the first client's slots taken ahead never age out: the second must not get them.
    installFakeClock();
    try {
      const shared = new RedisRateLimiter({ redis: redis.client(), namespace: `mixed-${namespaces++}` });
      const [a, b] = [await sandbox(60_000), await sandbox(60_000)];
      const onA = new PartnerClient({ baseUrl: a.url, key: a.key, secret: a.secret, rateLimit: shared, maxRetries: 0 });
      const onB = new PartnerClient({ baseUrl: b.url, key: b.key, secret: b.secret, rateLimit: shared, maxRetries: 0 });
      clients.push(onA, onB);
      await listSims(onA);
      const error = await listSims(onB).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).message).toMatch(/serves one account/);
      expect((error as ConfigurationError).code).toBe('CONFIGURATION_ERROR');
      expect((error as ConfigurationError).option).toBe('rateLimit');
    } finally {
      vi.useRealTimers();
    }
  });

  it('pauses a route in every limiter of the account when one of them meets a 429 Retry-After', async () => {
    const target = await sandbox(60_000);
    const namespace = `pause-${namespaces++}`;
    // Retry-After 120 s: longer than a call's deadline, so a paused call fails at once instead of waiting.
    const options = { maxRetries: 0, maxServerWaitMs: 200_000 };
    const first = member(target, { namespace }, options);
    const second = member(target, { namespace }, options);
    await Promise.all([listSims(first), listSims(second), second.request({ method: 'GET', path: '/api/v1.1/credit-balance' })]);
    // A process learns of a pause at its next script run: the slots it took ahead (handed out for
    // 10 ms at most) are given back first, so its next call asks Redis.
    await new Promise((resolve) => setTimeout(resolve, 30));
    target.force({ method: 'GET', path: '/api/v1.1/sims', status: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '120' } });
    await expect(listSims(first)).rejects.toBeInstanceOf(RateLimitError);
    // The pause is written to Redis as the 429 is read; another process sees it once it has landed.
    // A call polling for it would send requests of its own: this waits for the documented `…:pause` key.
    await until(async () => (await redis.client().keys(`${namespace}:*:pause`)).length > 0);
    const paused = await listSims(second).catch((error: unknown) => error);
    expect(paused).toBeInstanceOf(TimeoutError);
    expect((paused as TimeoutError).message).toMatch(/rate-limit wait \(1[12]\d{4} ms\)/);
    // spec part 8 rule 3: another endpoint is not held by the pause.
    await expect(second.request({ method: 'GET', path: '/api/v1.1/credit-balance' })).resolves.toBeDefined();
    const sims = (await sandboxLog(target)).filter((entry) => entry.path.startsWith('/api/v1.1/sims'));
    expect(sims.filter((entry) => entry.status === 429)).toHaveLength(1);
  });

  it('asks Redis far less than once per call: a steady caller takes slots ahead and settles its answers together', async () => {
    const store = redis.client();
    // On a fake clock the slots taken ahead never age out and no settle timer fires: only the runs the calls need.
    installFakeClock();
    try {
      const target = await sandbox(LONG_WINDOW_MS);
      const client = member(target, { namespace: `steady-${namespaces++}`, account: { limit: 100_000, windowMs: LONG_WINDOW_MS } });
      await listSims(client);
      await store.config('RESETSTAT');
      for (let i = 0; i < 64; i++) await listSims(client);
      const stats = await store.info('commandstats');
      const runs = [...stats.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
      // 16 slots ahead per run, asked for again when 4 are left: about a run per 12 calls, the answers
      // settled with it (a call that finds none left while more are on their way adds a run).
      expect(runs).toBeGreaterThan(0);
      expect(runs).toBeLessThanOrEqual(16);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives back the slots a process took ahead and did not use: the window stays whole for the fleet', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const namespace = `spares-${namespaces++}`;
    const limits = { namespace, account: { limit: 20, windowMs: LONG_WINDOW_MS } };
    const first = member(target, limits, { maxRetries: 0 });
    const second = member(target, limits, { maxRetries: 0 });
    // Its exchange and one call: two of the twenty, and slots taken ahead while the window was under half full.
    await listSims(first);
    // Unused, they go back within a few milliseconds; the answers settle with them.
    await flightEmptied(namespace);
    // The other eighteen are all the second process's: its exchange and seventeen calls, none waiting a window.
    for (let i = 0; i < 17; i++) await expect(listSims(second)).resolves.toBeDefined();
    const over = await listSims(second).catch((error: unknown) => error);
    expect(over).toBeInstanceOf(TimeoutError);
    expect((over as TimeoutError).requestNotSent).toBe(true);
    expect(await throttled(target)).toBe(0);
  });

  it('has a call refused while another process holds slots ahead ask again once they are back, not a window later', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const namespace = `ahead-${namespaces++}`;
    const limits = { namespace, account: { limit: 32, windowMs: LONG_WINDOW_MS } };
    const first = member(target, limits, { maxRetries: 0 });
    const second = member(target, limits, { maxRetries: 0 });
    await Promise.all([listSims(first), listSims(second)]);
    await flightEmptied(namespace);
    // Four of the 32 used. The first takes one more and two ahead (a sixteenth of the limit)...
    await listSims(first);
    // ...while the second asks for all 26 left at once: 25 fit now, the last once the first gives its spare back.
    const results = await Promise.allSettled(Array.from({ length: 26 }, () => listSims(second)));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(await throttled(target)).toBe(0);
  });

  it('follows X-RateLimit-Remaining 0 in every limiter: the window is full, whoever filled it', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const namespace = `sync-${namespaces++}`;
    const limits = { namespace, account: { limit: 120, windowMs: LONG_WINDOW_MS } };
    // Someone outside the fleet (no limiter) takes 119 of the window's 120.
    const outsider = new PartnerClient({ baseUrl: target.url, key: target.key, secret: target.secret, rateLimit: false });
    clients.push(outsider);
    for (let i = 0; i < 118; i++) await listSims(outsider);
    // The window's pause is believed for maxServerWaitMs (120 s), past each call's deadline (61 s).
    const options = { maxRetries: 0, timeoutMs: 1_000, maxServerWaitMs: 120_000 };
    const first = member(target, limits, options);
    const second = member(target, limits, options);
    // The fleet's first call is answered X-RateLimit-Remaining: 0 (the exchange took one more).
    await expect(listSims(first)).rejects.toBeInstanceOf(TimeoutError);
    const synced = await listSims(second).catch((error: unknown) => error);
    expect(synced).toBeInstanceOf(TimeoutError);
    expect((synced as TimeoutError).requestNotSent).toBe(true);
    expect(await throttled(target)).toBe(0);
  });
  it('believes X-RateLimit-Remaining 0 for maxServerWaitMs at most, in every limiter: then the server is asked again', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const namespace = `believed-${namespaces++}`;
    const limits = { namespace, account: { limit: 120, windowMs: LONG_WINDOW_MS } };
    const outsider = new PartnerClient({ baseUrl: target.url, key: target.key, secret: target.secret, rateLimit: false });
    clients.push(outsider);
    for (let i = 0; i < 118; i++) await listSims(outsider);
    const options = { maxRetries: 0, maxServerWaitMs: 300 };
    const first = member(target, limits, options);
    const second = member(target, limits, options);
    // The first exchange is answered Remaining 0; the pause it writes for the fleet lasts 300 ms, not the window.
    await expect(listSims(first)).rejects.toBeInstanceOf(RateLimitError);
    const asked = await listSims(second).catch((error: unknown) => error);
    expect(asked).toBeInstanceOf(RateLimitError);
    expect(await throttled(target)).toBeGreaterThanOrEqual(2);
  });
});

describe('RedisRateLimiter against windows on the clock', () => {
  it('does not take a window another process opened to begin at its own first answer: no 429', async () => {
    // Two per 2 s, windows on the clock's even seconds; someone outside the fleet sends the first
    // request of every window but the first. The fleet's first request comes 0.9 s before the
    // first window ends (Remaining 1, Reset 1): it locates that window's end, not its start. The
    // second, in the next window, is told Remaining 0; the third must wait for that window's end.
    const WINDOW_MS = 2_000;
    const server = await startTestServer();
    const windows = clockWindows(2, WINDOW_MS);
    server.on('GET /api/v1.1/thing', windows.reply);
    try {
      const namespace = `clock-${namespaces++}`;
      const fleet = [0, 1].map(() => {
        const client = new PartnerClient({
          baseUrl: server.url,
          key: 'k',
          secret: 's',
          maxRetries: 0,
          rateLimit: new RedisRateLimiter({ redis: redis.client(), namespace, account: { limit: 2, windowMs: WINDOW_MS } }),
        });
        clients.push(client);
        return client;
      });
      const thing = (client: PartnerClient | undefined) => client?.request({ method: 'GET', path: '/api/v1.1/thing', auth: false });
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      // To 0.9 s before the end of a window on the clock: of this one, or of the next if that is past.
      await sleep((2 * WINDOW_MS - 900 - (performance.now() % WINDOW_MS)) % WINDOW_MS);
      await thing(fleet[0]);
      await sleep(1_000);
      await thing(fleet[1]);
      await thing(fleet[0]);
      expect(windows.refused()).toBe(0);
      expect(server.requestsTo('GET /api/v1.1/thing')).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});

describe('RedisRateLimiter against a server of its own', () => {
  const THING = 'GET /api/v1.1/thing';
  let server: TestServer;

  beforeEach(async () => {
    server = await startTestServer();
  });

  afterEach(async () => {
    await server.close();
  });

  /** One process of a fleet calling the test server, its warnings and errors kept. */
  function fleetProcess(namespace: string, limits: Omit<RedisRateLimiterOptions, 'redis' | 'namespace'>, options: ClientOptions = {}) {
    const lines: Array<[string, string]> = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (message) => lines.push(['warn', message]),
      error: (message) => lines.push(['error', message]),
    };
    const limiter = new RedisRateLimiter({ redis: redis.client(), namespace, ...limits });
    const client = new PartnerClient({ baseUrl: server.url, key: 'k', secret: 's', maxRetries: 0, rateLimit: limiter, logger, ...options });
    clients.push(client);
    const thing = () => client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false });
    return { client, limiter, lines, thing };
  }

  it('settles answers without X-RateLimit headers and renews the lease of a route without a limit of its own: nothing to report', async () => {
    // Each answer takes 300 ms: three quarters of the account's window, so the lease is renewed meanwhile.
    server.on(THING, ok(1, { delayMs: 300 }));
    const namespace = `plain-${namespaces++}`;
    const one = fleetProcess(namespace, { account: { limit: 10, windowMs: 400 } });
    await one.thing();
    await one.thing();
    await flightEmptied(namespace);
    expect(one.lines).toEqual([]);
  });

  it('pauses every process for a limit it was not given, answered Remaining 0, until the reset', async () => {
    // The reset is two minutes away, believed for two minutes (maxServerWaitMs), past the second
    // call's deadline (its attempt and a minute): it fails at once, unsent.
    server.on(THING, ok(1, { headers: rateLimitHeaders(50, 0, 120) }));
    const namespace = `unknown-limit-${namespaces++}`;
    const limits = { account: { limit: 120, windowMs: 60_000 } };
    const first = fleetProcess(namespace, limits, { maxServerWaitMs: 120_000 });
    await first.thing();
    await flightEmptied(namespace);
    const second = fleetProcess(namespace, limits, { timeoutMs: 500, maxServerWaitMs: 120_000 });
    const refused = await second.thing().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TimeoutError);
    expect(refused).toMatchObject({ requestNotSent: true });
    expect(server.requestsTo(THING)).toHaveLength(1);
  });

  it('takes a pause of no length (0, negative or NaN ms) as none: nothing written, nothing reported', async () => {
    server.on(THING, ok(1));
    const namespace = `no-pause-${namespaces++}`;
    const one = fleetProcess(namespace, { account: { limit: 10, windowMs: 60_000 } });
    await one.thing();
    for (const ms of [0, -1_000, Number.NaN]) one.limiter.pause(THING, ms);
    await one.thing();
    expect(await redis.client().keys(`${namespace}:*pause*`)).toEqual([]);
    expect(one.lines).toEqual([]);
  });

  it('holds the count of a request in flight for a lease of a window and its margin', async () => {
    server.on(THING, ok(1, { delayMs: 500 }));
    const namespace = `lease-length-${namespaces++}`;
    const one = fleetProcess(namespace, { account: { limit: 10, windowMs: 60_000 } });
    const call = one.thing();
    await until(async () => server.requestsTo(THING).length > 0);
    const [alive] = await redis.client().keys(`${namespace}:*:account:alive`);
    const [, leaseEnds] = await redis.client().zrange(alive as string, '0', '0', 'WITHSCORES');
    const [seconds, micros] = await redis.client().time();
    const now = Number(seconds) * 1000 + Number(micros) / 1000;
    // A window of a minute and its margin (122 ms), less the moments since the lease began.
    expect(Number(leaseEnds) - now).toBeGreaterThan(60_000);
    await call;
  });

  it("follows a window's first answer from the time its request was sent, not the time it settled", async () => {
    // Two per 3 s. The first request is answered a second after it was sent (Remaining 1,
    // Reset 3): its window lasts past its send time and 2 s. The second, sent 2.1 s after the
    // first, is past that, so it may lie in the next window: told Remaining 0 there, the process
    // waits a whole window after its answer, not the first window's end.
    const WINDOW_MS = 3_000;
    server.on(THING, [ok(1, { headers: rateLimitHeaders(2, 1, 3), delayMs: 1_000 }), ok(2, { headers: rateLimitHeaders(2, 0, 3) }), ok(3)]);
    const namespace = `sent-at-${namespaces++}`;
    const one = fleetProcess(namespace, { account: { limit: 2, windowMs: WINDOW_MS } }, { timeoutMs: 10_000 });
    await one.thing();
    const [opener] = server.requestsTo(THING);
    await new Promise((resolve) => setTimeout(resolve, 2_100 - (performance.now() - (opener?.at ?? 0))));
    await one.thing();
    await one.thing();
    const [, second, third] = server.requestsTo(THING);
    expect((third?.at ?? 0) - (second?.answeredAt ?? Number.NaN)).toBeGreaterThanOrEqual(WINDOW_MS - 100);
  });
});

describe('RedisRateLimiter with a request in flight past its lease', () => {
  // A process's requests in flight count in each gate for a lease of that gate's window (and its
  // margin), renewed while they are in flight: they count until answered, however long that takes.
  const SIMS_ONE_A_SECOND = { 'GET /api/v1.1/sims': { limit: 1, windowMs: 1_000 } };
  it.each([
    ['the account on a window of a second too', { account: { limit: 120, windowMs: 1_000 }, endpoints: SIMS_ONE_A_SECOND }],
    ['the account on a window of a minute', { account: { limit: 120, windowMs: 60_000 }, endpoints: SIMS_ONE_A_SECOND }],
  ])(
    'keeps the slot of an endpoint limited to one a second from another process while its request is in flight for three (%s)',
    async (_, limits) => {
      const target = await sandbox(LONG_WINDOW_MS);
      const namespace = `lease-${namespaces++}`;
      const first = member(target, { namespace, ...limits }, { maxRetries: 0 });
      const second = member(target, { namespace, ...limits }, { maxRetries: 0 });
      const warmUp = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/credit-balance' });
      // Tokens first, through another route: the endpoint's one slot is untouched.
      await Promise.all([warmUp(first), warmUp(second)]);
      const before = (await sandboxLog(target)).length;
      // The first process's call is answered 3 s after it arrives: three of its leases.
      target.force({ method: 'GET', path: '/api/v1.1/sims', delayMs: 3_000, times: 1 });
      const held = listSims(first);
      await until(async () => (await sandboxLog(target)).length > before);
      // Past the lease it was admitted with, the second process asks for the endpoint's slot.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await Promise.all([held, listSims(second)]);
      const [heldLog, nextLog] = (await sandboxLog(target)).slice(before);
      expect(heldLog?.forced).not.toBeNull();
      // The second call arrives once the first was answered, not while it was in flight.
      expect(nextLog?.path).toMatch(/^\/api\/v1\.1\/sims/);
      expect(Date.parse(nextLog?.receivedAt ?? '') - Date.parse(heldLog?.receivedAt ?? '')).toBeGreaterThanOrEqual(3_000);
    },
  );
});

describe('RedisRateLimiter when Redis goes away', () => {
  function recordingLogger(): Logger & { lines: Array<[string, string]> } {
    const lines: Array<[string, string]> = [];
    return {
      lines,
      debug: () => {},
      info: (message) => lines.push(['info', message]),
      warn: (message) => lines.push(['warn', message]),
      error: (message) => lines.push(['error', message]),
    };
  }

  it('fail-open: calls go on under in-process limits, said once at warn, and Redis is used again once back', async () => {
    const target = await sandbox(1_000);
    const logger = recordingLogger();
    const namespace = `open-${namespaces++}`;
    const client = member(target, { namespace, account: { limit: 120, windowMs: 1_000 } }, { logger, logLevel: 'info' });
    await Promise.all(Array.from({ length: 10 }, () => listSims(client)));
    await redis.kill();
    try {
      const during = await Promise.all(Array.from({ length: 20 }, () => listSims(client)));
      expect(during).toHaveLength(20);
      expect(logger.lines.filter(([level]) => level === 'warn')).toHaveLength(1);
      expect(logger.lines[0]?.[1]).toMatch(/Redis is unavailable/);
    } finally {
      await redis.start();
    }
    // Asked again after the store's retry interval (1 s): calls from then on go through Redis. On a
    // loaded machine the restarted server may take longer to answer, so the calls go on, 200 ms
    // apart, for up to 10 s, until the limiter says Redis answers again.
    const back = (): boolean => logger.lines.some(([level, message]) => level === 'info' && /answers again/.test(message));
    for (let i = 0; i < 50 && !back(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await listSims(client);
    }
    expect(back()).toBe(true);
    // The server came back empty: the calls since wrote the fleet's state under the namespace again.
    expect((await redis.client().keys(`${namespace}:*`)).length).toBeGreaterThan(0);
  });

  it('fail-open: a burst that loses Redis midway and gets it back settles every call, none hung', async () => {
    const windowMs = 500;
    const target = await sandbox(windowMs);
    const limits = { namespace: `midway-${namespaces++}`, account: { limit: 120, windowMs } };
    const fleet = [member(target, limits, { logger: recordingLogger() }), member(target, limits, { logger: recordingLogger() })];
    await Promise.all(fleet.map(listSims));
    let answered = 0;
    const burst = Promise.allSettled(fleet.flatMap((client) => Array.from({ length: 150 }, () => listSims(client).then(() => answered++))));
    // Redis goes away once the first window's worth is answered, and comes back a window later.
    await until(async () => answered >= 100);
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    await redis.start();
    const outcomes = await burst;
    // While each process limited itself alone the sandbox may have answered 429s: they were retried.
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
  });

  it('warns of no outage when the process closes its Redis connection with answers still to settle', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const logger = recordingLogger();
    const connection = redis.client();
    const client = new PartnerClient({
      baseUrl: target.url,
      key: target.key,
      secret: target.secret,
      logger,
      logLevel: 'info',
      rateLimit: new RedisRateLimiter({ redis: connection, namespace: `closing-${namespaces++}` }),
    });
    clients.push(client);
    await listSims(client);
    // Shutting down: the answer is settled a few milliseconds later, on a connection its owner has closed.
    connection.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connection.status).toBe('end');
    expect(logger.lines.filter(([level]) => level === 'warn')).toEqual([]);
  });

  it('fail-closed: a call fails with ConnectionError, request not sent, without waiting on the dead store', async () => {
    const target = await sandbox(1_000);
    const client = member(target, { namespace: `closed-${namespaces++}`, onStoreError: 'fail-closed' }, { maxRetries: 0 });
    await listSims(client);
    const before = (await sandboxLog(target)).length;
    await redis.kill();
    try {
      const error = await listSims(client).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as ConnectionError).requestNotSent).toBe(true);
      expect((error as ConnectionError).message).toMatch(/rate limiter's store \(Redis\) is unavailable/);
      expect((await sandboxLog(target)).length).toBe(before);
    } finally {
      await redis.start();
    }
  });
});

describe('RedisRateLimiter when Redis answers after the limiter gave up', () => {
  /**
   * Holds every write (scripts included) Redis receives for `ms`, then runs them in order: each
   * command the limiter sends meanwhile times out on its side and is still executed later.
   */
  async function slowRedis(ms: number): Promise<void> {
    await redis.client().call('CLIENT', 'PAUSE', String(ms), 'WRITE');
  }

  /** Resolves once the writes held by {@link slowRedis} have run: a write sent now waits behind them. */
  async function caughtUp(): Promise<void> {
    await redis.client().set('caught-up', '1');
  }

  /**
   * A call of the process whose limiter waits 100 ms for Redis, outside the part under test: on a
   * loaded machine Redis can take longer even when nothing holds it back, and fail-closed then
   * sends nothing (its late admission is given back, as this suite proves), so the call is made again.
   */
  async function unhurried(client: PartnerClient): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await listSims(client);
        return;
      } catch (error) {
        if (!(error instanceof ConnectionError) || error.requestNotSent !== true || attempt === 5) throw error;
      }
    }
  }

  it('gives back the slots of an admission it stopped waiting for: a second process gets all 16 calls', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const namespace = `late-${namespaces++}`;
    // 22 a window: both exchanges, a call of each, two more calls of the first, and the second's 16.
    const limits = { namespace, account: { limit: 22, windowMs: LONG_WINDOW_MS }, onStoreError: 'fail-closed' as const };
    const first = member(target, { ...limits, commandTimeoutMs: 100 }, { maxRetries: 0 });
    const second = member(target, limits, { maxRetries: 0 });
    await unhurried(first);
    await listSims(second);
    // The slots the warm-up took ahead are back: a call of the sixteen below cannot hold one.
    await flightEmptied(namespace);
    await slowRedis(1_200);
    // Sixteen calls ask at once; the limiter gives up after 100 ms, and Redis admits them later.
    const gaveUp = await Promise.allSettled(Array.from({ length: 16 }, () => listSims(first)));
    for (const outcome of gaveUp) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ConnectionError);
    }
    await caughtUp();
    // The first process stays busy: its next calls go through Redis (two at once: a lone call would
    // take slots ahead, whose return a loaded machine could delay past the second process's ask).
    await Promise.all([unhurried(first), unhurried(first)]);
    // The 16 slots admitted late were never used: the second process has them all.
    const outcomes = await Promise.allSettled(Array.from({ length: 16 }, () => listSims(second)));
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect(await throttled(target)).toBe(0);
  });

  it('gives them back under fail-open too, though the process never calls that route again', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const namespace = `late-open-${namespaces++}`;
    // 20 a window: both exchanges, a call of each, and the second's 16.
    const limits = { namespace, account: { limit: 20, windowMs: LONG_WINDOW_MS } };
    const logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
    const first = member(target, { ...limits, commandTimeoutMs: 100 }, { maxRetries: 0, logger });
    // Fail-closed: its calls can only go through Redis, never around it.
    const second = member(target, { ...limits, onStoreError: 'fail-closed' }, { maxRetries: 0 });
    await listSims(first);
    await listSims(second);
    // The slots the warm-up took ahead are back: a call of the sixteen below cannot hold one.
    await flightEmptied(namespace);
    await slowRedis(1_200);
    // Given up on after 100 ms, the sixteen are sent under the in-process limits; Redis admits them later all the same.
    const sent = await Promise.allSettled(Array.from({ length: 16 }, () => listSims(first)));
    expect(sent.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    await caughtUp();
    // The first process is idle from here on: only the run it sent when it gave up corrects its count.
    const outcomes = await Promise.allSettled(Array.from({ length: 16 }, () => listSims(second)));
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
  });

  it('counts once the answers a run settled after the limiter gave up on it, and sent again with the next run', async () => {
    const target = await sandbox(LONG_WINDOW_MS);
    const namespace = `late-settle-${namespaces++}`;
    // 10 a window: both exchanges, a call of each, the first's three below, and three of the second's four.
    const limits = { namespace, account: { limit: 10, windowMs: LONG_WINDOW_MS }, onStoreError: 'fail-closed' as const };
    const first = member(target, { ...limits, commandTimeoutMs: 100 }, { maxRetries: 0 });
    const second = member(target, limits, { maxRetries: 0 });
    await listSims(first);
    await listSims(second);
    await flightEmptied(namespace);
    // Three calls admitted now, answered 300 ms later: their settle run meets a slow Redis, is given
    // up on, and is executed later; its answers go again with the next run.
    const before = (await sandboxLog(target)).length;
    target.force({ method: 'GET', path: '/api/v1.1/sims', delayMs: 300, times: 3 });
    const three = Promise.all(Array.from({ length: 3 }, () => listSims(first)));
    await until(async () => (await sandboxLog(target)).length >= before + 3);
    await slowRedis(1_200);
    await three;
    await caughtUp();
    await flightEmptied(namespace);
    // Counted twice, the three would leave the second process none of the three slots left.
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => listSims(second)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(TimeoutError);
    expect(await throttled(target)).toBe(0);
  });
});
