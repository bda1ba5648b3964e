/**
 * The fleet as it runs: several child processes, each with its own client and RedisRateLimiter,
 * share one sandbox (one account) and one redis-server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { type CompiledScripts, compileScripts } from '../helpers/bundle.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

const CHILD = 'test/redis/fleet-child.ts';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let redis: RedisServer;
let sandbox: SandboxHandle;
/** The child compiled once for plain `node`: a start costs a fraction of `node --import tsx`'s. */
let compiled: CompiledScripts;
/**
 * The sandbox's window. A process's lease is one window, renewed every quarter window while it
 * has requests in flight: a child starved of the CPU for three quarters of a window loses its
 * flight to the others (a killed process must free its slots within a window). At 500 ms that
 * took a stall of 375 ms, which a loaded two-core machine can deal a child; at a second, 750 ms.
 */
const WINDOW_MS = 1_000;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  [redis, sandbox, compiled] = await Promise.all([startRedis(), startSandbox({ port: 0, rateLimitWindowMs: WINDOW_MS }), compileScripts([CHILD])]);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await sandbox.close();
  await redis.stop();
  compiled.remove();
});

interface Outcome {
  answered: number;
  failed: string[];
}

interface Member {
  child: ChildProcess;
  ready: Promise<void>;
  /** The outcome of the first batch. */
  outcome: Promise<Outcome>;
  /** Starts one more batch (after the first's outcome) and resolves with its outcome. */
  again(): Promise<Outcome>;
}

function member(env: Record<string, string>): Member {
  const child = spawn(process.execPath, [compiled.path(CHILD)], {
    cwd: ROOT,
    env: {
      ...process.env,
      FLEET_SANDBOX_URL: sandbox.url,
      FLEET_KEY: sandbox.key,
      FLEET_SECRET: sandbox.secret,
      FLEET_REDIS_PORT: String(redis.port),
      FLEET_WINDOW_MS: String(WINDOW_MS),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`fleet child exited with ${code}: ${stderr.slice(-500)}`));
      child.once('exit', onExit);
      lines.once('line', (line) => {
        child.off('exit', onExit);
        resolve(line);
      });
    });
  const ready = next().then(() => undefined);
  const outcome = ready.then(next).then((line) => JSON.parse(line) as Outcome);
  const again = async (): Promise<Outcome> => {
    const line = next();
    child.stdin?.write('go\n');
    return JSON.parse(await line) as Outcome;
  };
  return { child, ready, outcome, again };
}

interface Logged {
  path: string;
  status: number | null;
  receivedAt: string;
  rateLimit: { remaining: number | null } | null;
}

/** A burst as the sandbox saw it, for a failure's message: each request's ms from the first, status and Remaining. */
function timeline(burst: readonly Logged[]): string {
  const first = Date.parse(burst[0]?.receivedAt ?? '');
  return burst.map((entry) => `${Date.parse(entry.receivedAt) - first}:${entry.status}:${entry.rateLimit?.remaining ?? '-'}`).join(' ');
}

async function sandboxLog(): Promise<Logged[]> {
  return ((await (await fetch(`${sandbox.url}/_sandbox/requests`)).json()) as { requests: Logged[] }).requests;
}

describe('a fleet of processes on one Redis', () => {
  it('keeps three processes to the account limit together: no 429, no fewer windows than the calls need', async () => {
    const fleet = [0, 1, 2].map(() => member({ FLEET_NAMESPACE: 'paced', FLEET_LIMIT: '120', FLEET_CALLS: '100', FLEET_PATH: '/api/v1.1/sims' }));
    await Promise.all(fleet.map((one) => one.ready));
    // A fresh sandbox window for the burst.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 50));
    const before = (await sandboxLog()).length;
    for (const one of fleet) one.child.stdin?.write('go\n');
    const outcomes = await Promise.all(fleet.map((one) => one.outcome));
    expect(outcomes.map((outcome) => outcome.failed)).toEqual([[], [], []]);
    const burst = (await sandboxLog()).slice(before).filter((entry) => entry.path === '/api/v1.1/sims');
    // On failure, the burst's timeline says where the extra requests fell.
    expect(burst.length, timeline(burst)).toBe(300);
    expect(burst.filter((entry) => entry.status === 429)).toHaveLength(0);
    // 300 calls at 120 per window need three windows: the last cannot open before two have passed.
    const received = burst.map((entry) => Date.parse(entry.receivedAt));
    expect(Math.max(...received) - Math.min(...received)).toBeGreaterThanOrEqual(2 * WINDOW_MS);
  });

  it('gives back the slots of a process killed while its requests were in flight, within a window', async () => {
    const namespace = 'killed';
    sandbox.force({ method: 'GET', path: '/api/v1.1/credit-balance', delayMs: 60_000, times: 4 });
    const doomed = member({ FLEET_NAMESPACE: namespace, FLEET_LIMIT: '5', FLEET_CALLS: '4', FLEET_PATH: '/api/v1.1/credit-balance' });
    await doomed.ready;
    // Killed before it reports: its outcome is never read.
    doomed.outcome.catch(() => undefined);
    doomed.child.stdin?.write('go\n');
    // Its four requests reached the sandbox and hang there; with its token exchange, all five slots are taken.
    while ((await sandboxLog()).filter((entry) => entry.path === '/api/v1.1/credit-balance').length < 4) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Whether the dead process's slots free within a window is a matter of its lease, which no
    // call can observe without waiting a window on the clock: this reads the `flight` and `alive`
    // keys the fleet guide documents (docs/fleet.md, the keys table).
    const store = redis.client();
    const [flight] = await store.keys(`${namespace}:*:account:flight`);
    expect(flight).toBeDefined();
    const counts = Object.values(await store.hgetall(flight as string)).map(Number);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(4);
    doomed.child.kill('SIGKILL');
    await new Promise((resolve) => doomed.child.once('exit', resolve));
    // Nobody renews the dead process's lease: it runs out at most one window (and its margin) from now.
    const [seconds, micros] = await store.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const leases = await store.zrange((flight as string).replace(/flight$/, 'alive'), '0', '-1', 'WITHSCORES');
    const ends = leases.filter((_, index) => index % 2 === 1).map(Number);
    expect(ends.length).toBeGreaterThan(0);
    expect(Math.max(...ends) - nowMs).toBeLessThanOrEqual(WINDOW_MS + 10);
    // A new process gets slots: five calls (and its exchange) on the limit of five go through.
    const next = member({ FLEET_NAMESPACE: namespace, FLEET_LIMIT: '5', FLEET_CALLS: '5', FLEET_PATH: '/api/v1.1/sims' });
    await next.ready;
    next.child.stdin?.write('go\n');
    expect((await next.outcome).failed).toEqual([]);
  });

  it('rides out Redis stopped and started again mid-run: no call hangs, and the fleet shares its window again after', async () => {
    const namespace = 'outage';
    const fleet = [0, 1, 2].map(() =>
      member({ FLEET_NAMESPACE: namespace, FLEET_LIMIT: '120', FLEET_CALLS: '100', FLEET_CONCURRENCY: '8', FLEET_PATH: '/api/v1.1/sims' }),
    );
    await Promise.all(fleet.map((one) => one.ready));
    for (const one of fleet) one.child.stdin?.write('go\n');
    // The store goes away under the running batch, and comes back empty a second later.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await redis.start();
    const outcomes = await Promise.all(fleet.map((one) => one.outcome));
    // Every call settled: answered, or out of retries on a 429 drawn while each process limited itself alone.
    for (const outcome of outcomes) {
      expect(outcome.answered + outcome.failed.length).toBe(100);
      for (const failure of outcome.failed) expect(failure).toMatch(/^RateLimitError/);
    }
    expect(outcomes.reduce((sum, outcome) => sum + outcome.answered, 0)).toBeGreaterThan(0);
    // Past the fallback's second, the processes ask Redis again: a fresh window, shared, draws no 429.
    await new Promise((resolve) => setTimeout(resolve, 1_200 + WINDOW_MS));
    const before = (await sandboxLog()).length;
    const after = await Promise.all(fleet.map((one) => one.again()));
    expect(after.map((outcome) => outcome.failed)).toEqual([[], [], []]);
    const batch = (await sandboxLog()).slice(before).filter((entry) => entry.path === '/api/v1.1/sims');
    expect(batch).toHaveLength(300);
    expect(batch.filter((entry) => entry.status === 429)).toHaveLength(0);
    // The server came back empty: the batch wrote the fleet's state under the namespace again.
    expect((await redis.client().keys(`${namespace}:*`)).length).toBeGreaterThan(0);
  });

  it('keeps two accounts on one Redis in windows of their own, a process each', async () => {
    const other = await startSandbox({ port: 0, rateLimitWindowMs: WINDOW_MS });
    try {
      // One namespace, a limit of six per window far longer than a call's deadline: a shared window would fail calls.
      const limits = { FLEET_NAMESPACE: 'accounts', FLEET_LIMIT: '6', FLEET_WINDOW_MS: '600000', FLEET_CALLS: '4', FLEET_PATH: '/api/v1.1/sims' };
      const onA = member(limits);
      const onB = member({ ...limits, FLEET_SANDBOX_URL: other.url, FLEET_KEY: other.key, FLEET_SECRET: other.secret });
      await Promise.all([onA.ready, onB.ready]);
      for (const one of [onA, onB]) one.child.stdin?.write('go\n');
      // Each account's whole window: the warm-up's exchange (auth.token() is a call of its own), the client's, four calls.
      expect(await Promise.all([onA.outcome, onB.outcome])).toEqual([
        { answered: 4, failed: [] },
        { answered: 4, failed: [] },
      ]);
      // Keys are `namespace:{account}:…` (docs/fleet.md): one namespace, two accounts' tags.
      const keys = await redis.client().keys('accounts:*');
      expect(new Set(keys.map((key) => /\{(\w+)\}/.exec(key)?.[1])).size).toBe(2);
    } finally {
      await other.close();
    }
  });
});
