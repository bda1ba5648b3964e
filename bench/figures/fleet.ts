/**
 * Figure 11: fleet mode on a real redis-server (127.0.0.1, no persistence).
 * - Pacing: 4 processes × 150 calls to one endpoint of the sandbox (its own process) at 120 per
 *   window, the window scaled to 1 s so the run takes seconds (quick: 250 ms, 2 processes). 429
 *   answers (goal 0) and wall time against the theoretical minimum (ceil(600/120) - 1) windows
 *   (goal ≤ 1.15×); the same run with in-process limiters only gives the baseline 429 count.
 * - Acquire overhead: one process, acquire → release on loopback Redis, median and p99 in µs.
 * - Throughput: client/raw-undici calls per second with the Redis limiter, divided by the same
 *   ratio with the in-process limiter, at concurrency 1 and 50 (goal ≥ 0.7), on the bench API.
 * - Dedupe: 4 receiver processes, each of N events delivered twice to two of them → handled exactly N.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { startRedis, type RedisServer } from '../../test/helpers/redis.js';
import { ROOT, UNREACHED_RATE_LIMIT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { startServer } from '../lib/processes.js';
import { type Row, skippedRow } from '../lib/report.js';
import { BENCH_KEY, BENCH_SECRET, BENCH_TOKEN } from '../lib/sims.js';
import { callsPerSecond, median, rotate, sleep } from '../lib/stats.js';

const LIMIT = 120;
const DIST = process.env.BENCH_DIST_DIR ? path.resolve(process.env.BENCH_DIST_DIR) : path.join(ROOT, 'dist');

type Limiter = {
  acquire(route: string): Promise<void> | undefined;
  release(route: string, sentAt: number, rateLimit: undefined): void;
  close(): void;
};
interface Sdk {
  PartnerClient: new (options: Record<string, unknown>) => {
    request(input: { method: 'GET'; path: string; query?: Record<string, number> }): Promise<unknown>;
    close(): Promise<void>;
  };
}
interface Fleet {
  RedisRateLimiter: new (options: Record<string, unknown>) => Limiter;
  RedisDedupeStore: new (options: Record<string, unknown>) => unknown;
}
interface Hooks {
  signPayload(body: string, secret: string): string;
}

const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(DIST, file)).href)) as T;

interface Sandbox {
  url: string;
  key: string;
  secret: string;
}

interface Worker {
  child: ChildProcess;
  /** The next line the worker prints. */
  line(): Promise<string>;
}

/** A fleet-worker process (see bench/lib/fleet-worker.ts) with `env` on top of the figure's own. */
function spawnWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/lib/fleet-worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, FLEET_LIMIT: String(LIMIT), ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const line = async (): Promise<string> => {
    const next = await lines.next();
    if (next.done) throw new Error(`a ${env.FLEET_MODE} worker exited early`);
    return next.value;
  };
  return { child, line };
}

function sandboxEnv(sandbox: Sandbox, redis: RedisServer, windowMs: number): Record<string, string> {
  return {
    FLEET_SANDBOX_URL: sandbox.url,
    FLEET_KEY: sandbox.key,
    FLEET_SECRET: sandbox.secret,
    FLEET_REDIS_PORT: String(redis.port),
    FLEET_WINDOW_MS: String(windowMs),
  };
}

async function sandboxLog(sandbox: Sandbox): Promise<Array<{ path: string; status: number }>> {
  return ((await (await fetch(`${sandbox.url}/_sandbox/requests`)).json()) as { requests: Array<{ path: string; status: number }> }).requests;
}

const throttledIn = (log: Array<{ path: string; status: number }>): number =>
  log.filter((entry) => entry.path.startsWith('/api/') && entry.status === 429).length;

/** `processes` workers on one sandbox window, all started at once; the wall time and the sandbox's 429s. */
async function burst(mode: 'redis' | 'local', sandbox: Sandbox, redis: RedisServer, windowMs: number, processes: number, calls: number) {
  // One namespace for the whole fleet of this run.
  const namespace = `bench-${mode}-${Date.now()}`;
  const workers = Array.from({ length: processes }, () =>
    spawnWorker({ ...sandboxEnv(sandbox, redis, windowMs), FLEET_MODE: mode, FLEET_NAMESPACE: namespace, FLEET_CALLS: String(calls) }),
  );
  try {
    const ready = workers.map((worker) => worker.line());
    const outcomes = ready.map((readied, index) =>
      readied.then(() => (workers[index] as Worker).line()).then((text) => JSON.parse(text) as { failed: number }),
    );
    await Promise.all(ready);
    // A fresh sandbox window for the burst, and an empty request log to count it.
    await sleep(windowMs + 100);
    await fetch(`${sandbox.url}/_sandbox/requests`, { method: 'DELETE' });
    const start = performance.now();
    for (const worker of workers) worker.child.stdin?.write('go\n');
    const results = await Promise.all(outcomes);
    const wallMs = performance.now() - start;
    return {
      wallMs,
      throttled: throttledIn(await sandboxLog(sandbox)),
      failed: results.reduce((sum, result) => sum + result.failed, 0),
    };
  } finally {
    for (const worker of workers) worker.child.kill('SIGKILL');
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

const windowOf = (config: FigureConfig): number => (config.quick ? 250 : 1_000);

async function pacingRows(config: FigureConfig, redis: RedisServer, sandbox: Sandbox): Promise<Row[]> {
  const windowMs = windowOf(config);
  const processes = config.quick ? 2 : 4;
  const calls = 150;
  const total = processes * calls;
  const figure = `11. fleet: ${processes} processes × ${calls} calls, sandbox at ${LIMIT} per ${windowMs} ms (scaled window)`;
  const local = await burst('local', sandbox, redis, windowMs, processes, calls);
  // The sandbox's windows of the first run are over before the second starts (burst waits one).
  const shared = await burst('redis', sandbox, redis, windowMs, processes, calls);
  const minimumMs = (Math.ceil(total / LIMIT) - 1) * windowMs;
  const ratio = shared.wallMs / minimumMs;
  return [
    {
      id: 'fleet.429',
      figure: `${figure}, 429 answers`,
      value: shared.throttled,
      baseline: local.throttled,
      unit: '',
      baselineLabel: 'in-process limiters only',
      ratio: null,
      goal: '0',
      met: shared.throttled === 0 && shared.failed === 0,
      note: `${shared.failed} call(s) failed with Redis, ${local.failed} with in-process limiters (their 429s retried)`,
    },
    {
      id: 'fleet.time',
      figure: `${figure}, wall time`,
      value: shared.wallMs,
      baseline: minimumMs,
      unit: 'ms',
      baselineLabel: `minimum (ceil(${total}/${LIMIT}) - 1) × ${windowMs} ms`,
      ratio,
      goal: '≤ 1.15',
      met: ratio <= 1.15,
      note: `in-process limiters only took ${local.wallMs.toFixed(0)} ms`,
    },
  ];
}

/**
 * A process holding half the window's slots is killed; another process then asks for the whole
 * window: the time from the kill until it has every slot (the dead lease ran out).
 */
async function killedRows(config: FigureConfig, redis: RedisServer, fleet: Fleet): Promise<Row[]> {
  const windowMs = windowOf(config);
  const held = LIMIT / 2;
  const route = 'GET /api/v1.1/sims';
  const namespace = `bench-killed-${Date.now()}`;
  const base = { FLEET_REDIS_PORT: String(redis.port), FLEET_NAMESPACE: namespace, FLEET_WINDOW_MS: String(windowMs) };
  const worker = spawnWorker({ ...base, FLEET_MODE: 'hold', FLEET_CALLS: String(held), FLEET_ROUTE: route });
  const limiter = new fleet.RedisRateLimiter({ redis: redis.client(), namespace, account: { limit: LIMIT, windowMs } });
  try {
    await worker.line();
    const exited = new Promise((resolve) => worker.child.once('exit', resolve));
    worker.child.kill('SIGKILL');
    await exited;
    const killedAt = performance.now();
    let atOnce = 0;
    await Promise.all(
      Array.from({ length: LIMIT }, async () => {
        const pending = limiter.acquire(route);
        if (pending) await pending;
        if (performance.now() - killedAt < windowMs / 4) atOnce += 1;
      }),
    );
    const backMs = performance.now() - killedAt;
    return [
      {
        id: 'fleet.killed',
        figure: `11. fleet: a process killed holding ${held} of ${LIMIT} slots, until another has all ${LIMIT}`,
        value: backMs,
        baseline: windowMs,
        unit: 'ms',
        baselineLabel: 'one window',
        ratio: backMs / windowMs,
        goal: '≤ 1.05 (a window, its margin, a round trip)',
        met: backMs <= windowMs * 1.05,
        note: `${atOnce} slots at once, the rest when the dead process's lease ran out (it held ${held} in flight and any it had taken ahead)`,
      },
    ];
  } finally {
    limiter.close();
    worker.child.kill('SIGKILL');
  }
}

/**
 * Processes calling steadily while Redis is stopped for a while and started again (empty), under
 * fail-open: calls still pending well after the run are hung (goal 0); the sandbox's 429s while
 * each process limited itself alone are what the outage cost.
 */
async function outageRows(config: FigureConfig, redis: RedisServer, sandbox: Sandbox): Promise<Row[]> {
  const windowMs = windowOf(config);
  const processes = config.quick ? 2 : 4;
  const [beforeMs, outageMs, afterMs] = config.quick ? [500, 1_000, 1_000] : [1_500, 5_000, 2_500];
  const durationMs = beforeMs + outageMs + afterMs;
  const namespace = `bench-outage-${Date.now()}`;
  const workers = Array.from({ length: processes }, () =>
    spawnWorker({
      ...sandboxEnv(sandbox, redis, windowMs),
      FLEET_MODE: 'redis',
      FLEET_NAMESPACE: namespace,
      FLEET_DURATION_MS: String(durationMs),
      FLEET_CONCURRENCY: '8',
      FLEET_GRACE_MS: '15000',
    }),
  );
  try {
    await Promise.all(workers.map((worker) => worker.line()));
    await sleep(windowMs + 100);
    await fetch(`${sandbox.url}/_sandbox/requests`, { method: 'DELETE' });
    const outcomes = workers.map((worker) => worker.line().then((text) => JSON.parse(text) as { calls: number; settled: number; failed: number }));
    for (const worker of workers) worker.child.stdin?.write('go\n');
    await sleep(beforeMs);
    await redis.kill();
    await sleep(outageMs);
    await redis.start();
    const results = await Promise.all(outcomes);
    const calls = results.reduce((sum, result) => sum + result.calls, 0);
    const hung = results.reduce((sum, result) => sum + result.calls - result.settled, 0);
    const failed = results.reduce((sum, result) => sum + result.failed, 0);
    const throttled = throttledIn(await sandboxLog(sandbox));
    const figure = `11. fleet: ${processes} processes calling for ${durationMs / 1000} s, Redis down ${outageMs / 1000} s (fail-open)`;
    return [
      {
        id: 'fleet.outage.hung',
        figure: `${figure}, calls hung`,
        value: hung,
        baseline: calls,
        unit: 'calls',
        baselineLabel: 'calls made',
        ratio: null,
        goal: '0',
        met: hung === 0,
        note: `${failed} call(s) failed (out of retries on a 429)`,
      },
      {
        id: 'fleet.outage.429',
        figure: `${figure}, 429 answers`,
        value: throttled,
        baseline: calls,
        unit: '',
        baselineLabel: 'calls made',
        ratio: null,
        goal: '—',
        met: null,
        note: 'each process limits itself alone while Redis is away; the 429s are retried',
      },
    ];
  } finally {
    for (const worker of workers) worker.child.kill('SIGKILL');
  }
}

async function limiterRows(config: FigureConfig, redis: RedisServer, fleet: Fleet, sdk: Sdk): Promise<Row[]> {
  const connection = redis.client();
  const rows: Row[] = [];
  // Acquire overhead: a limit no run reaches, so every acquire is one script run.
  const limiter = new fleet.RedisRateLimiter({ redis: connection, namespace: 'bench-acquire', account: UNREACHED_RATE_LIMIT.account });
  const samples: number[] = [];
  // The acquires that waited for a script run (the rest took a slot the last run granted ahead).
  const asked: number[] = [];
  const count = config.quick ? 300 : 5_000;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const pending = limiter.acquire('GET /api/v1.1/sims');
    if (pending) await pending;
    const micros = (performance.now() - start) * 1000;
    samples.push(micros);
    if (pending) asked.push(micros);
    limiter.release('GET /api/v1.1/sims', start, undefined);
  }
  limiter.close();
  samples.sort((a, b) => a - b);
  asked.sort((a, b) => a - b);
  rows.push({
    id: 'fleet.acquire',
    figure: '11. fleet: acquire on loopback Redis, median (p99 in note)',
    value: median(samples),
    baseline: null,
    unit: 'µs',
    baselineLabel: '',
    ratio: null,
    goal: '—',
    met: null,
    note:
      `p99 ${percentile(samples, 0.99).toFixed(0)} µs over ${count} sequential acquires; ${asked.length} of them waited for a script run ` +
      `(median ${median(asked).toFixed(0)} µs, p99 ${percentile(asked, 0.99).toFixed(0)} µs), the rest took a slot granted ahead`,
  });

  // Throughput: the same client with either limiter, each against raw undici in the same round.
  const url = `${config.apiUrl}/api/v1.1/sims?pageSize=20`;
  const headers = { authorization: `Bearer ${BENCH_TOKEN}`, accept: 'application/json' };
  const options = { baseUrl: config.apiUrl, key: BENCH_KEY, secret: BENCH_SECRET };
  const redisClient = new sdk.PartnerClient({
    ...options,
    rateLimit: new fleet.RedisRateLimiter({ redis: connection, namespace: 'bench-throughput', account: UNREACHED_RATE_LIMIT.account }),
  });
  const localClient = new sdk.PartnerClient({ ...options, rateLimit: UNREACHED_RATE_LIMIT });
  const list = (client: typeof redisClient) => () => client.request({ method: 'GET', path: '/api/v1.1/sims', query: { pageSize: 20 } });
  const variants: Record<string, () => Promise<unknown>> = {
    undici: async () => JSON.parse(await (await request(url, { headers })).body.text()) as unknown,
    redis: list(redisClient),
    local: list(localClient),
  };
  await variants.redis?.();
  await variants.local?.();
  const rounds = config.quick ? 2 : 7;
  const durationMs = config.quick ? 300 : 1_000;
  try {
    for (const concurrency of [1, 50]) {
      const ratios: number[] = [];
      const redisRatios: number[] = [];
      const localRatios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const rates: Record<string, number> = {};
        for (const name of rotate(Object.keys(variants), round)) {
          rates[name] = (await callsPerSecond(variants[name] as () => Promise<unknown>, concurrency, durationMs)).perSecond;
        }
        const redisRatio = (rates.redis as number) / (rates.undici as number);
        const localRatio = (rates.local as number) / (rates.undici as number);
        redisRatios.push(redisRatio);
        localRatios.push(localRatio);
        ratios.push(redisRatio / localRatio);
      }
      const ratio = median(ratios);
      rows.push({
        id: `fleet.throughput.c${concurrency}`,
        figure: `11. fleet: client/undici calls per second at concurrency ${concurrency}, Redis limiter vs in-process`,
        value: median(redisRatios),
        baseline: median(localRatios),
        unit: '× undici',
        baselineLabel: 'in-process limiter',
        ratio,
        goal: '≥ 0.7',
        met: ratio >= 0.7,
        note: `median of ${rounds} rounds of ${durationMs} ms per variant`,
      });
    }
  } finally {
    await redisClient.close();
    await localClient.close();
  }
  return rows;
}

/** Four receiver processes; each event delivered twice, to two of them at once: how many times events were handled. */
async function dedupeRows(config: FigureConfig, redis: RedisServer, hooks: Hooks): Promise<Row[]> {
  const events = config.quick ? 100 : 1_000;
  const secret = `whsec_${'b7'.repeat(32)}`;
  const namespace = `bench-dedupe-${Date.now()}`;
  const receivers = Array.from({ length: 4 }, () =>
    spawnWorker({ FLEET_MODE: 'receive', FLEET_REDIS_PORT: String(redis.port), FLEET_NAMESPACE: namespace, FLEET_SECRET: secret }),
  );
  let handled: string[];
  try {
    const urls = await Promise.all(receivers.map((receiver) => receiver.line()));
    const deliver = async (url: string, body: string): Promise<void> => {
      const { body: answer } = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': hooks.signPayload(body, secret) },
        body,
      });
      await answer.text();
    };
    for (let first = 0; first < events; first += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, events - first) }, (_, offset) => {
          const i = first + offset;
          const body = JSON.stringify({ id: `vqt_${i}`, event: 'voice.test.completed' });
          return Promise.all([deliver(urls[i % 4] as string, body), deliver(urls[(i + 1) % 4] as string, body)]);
        }),
      );
    }
    handled = await redis.client().lrange(`${namespace}:handled`, 0, -1);
  } finally {
    for (const receiver of receivers) receiver.child.kill('SIGKILL');
  }
  const distinct = new Set(handled).size;
  return [
    {
      id: 'fleet.dedupe',
      figure: `11. fleet: 4 receiver processes, ${events} events each delivered twice to two of them, events handled`,
      value: handled.length,
      baseline: events,
      unit: 'events',
      baselineLabel: 'distinct events',
      ratio: handled.length / events,
      goal: `= ${events}`,
      met: handled.length === events && distinct === events,
    },
  ];
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  let redis: RedisServer;
  try {
    redis = await startRedis();
  } catch (error) {
    return [skippedRow('fleet.429', '11. fleet on Redis', '0', (error as Error).message)];
  }
  try {
    const [sdk, fleet, hooks] = await Promise.all([load<Sdk>('index.js'), load<Fleet>('redis/index.js'), load<Hooks>('webhooks/index.js')]);
    const sandbox = await startServer<Sandbox>(['sandbox', String(windowOf(config))]);
    try {
      return [
        ...(await pacingRows(config, redis, sandbox.info)),
        ...(await killedRows(config, redis, fleet)),
        ...(await limiterRows(config, redis, fleet, sdk)),
        ...(await dedupeRows(config, redis, hooks)),
        // Last: it stops Redis, and the Redis it starts again is empty.
        ...(await outageRows(config, redis, sandbox.info)),
      ];
    } finally {
      await sandbox.stop();
    }
  } finally {
    await redis.stop();
  }
}
