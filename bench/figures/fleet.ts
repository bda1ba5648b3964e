/**
 * Figure 11: fleet mode on a real redis-server (127.0.0.1, no persistence).
 * - Pacing: 4 processes × 150 calls to one endpoint of the sandbox (its own process) at 120 per
 *   window, the window scaled to 1 s so the run takes seconds (quick: 250 ms, 2 processes). 429
 *   answers (goal 0) and wall time against the theoretical minimum (ceil(600/120) - 1) windows
 *   (goal ≤ 1.15×); the same run with in-process limiters only gives the baseline 429 count.
 * - Acquire overhead: one process, acquire → release on loopback Redis, median and p99 in µs.
 * - Throughput: client/raw-undici calls per second with the Redis limiter, divided by the same
 *   ratio with the in-process limiter, at concurrency 1 and 50 (goal ≥ 0.7), on the bench API.
 * - Dedupe: 4 receivers, each of N events delivered twice to two of them → handled exactly N.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
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
  createNodeHandler(options: Record<string, unknown>): (req: unknown, res: unknown) => Promise<void>;
  createDeduplicator(options: Record<string, unknown>): unknown;
  signPayload(body: string, secret: string): string;
}

const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(DIST, file)).href)) as T;

interface Sandbox {
  url: string;
  key: string;
  secret: string;
}

/** `processes` workers on one sandbox window, all started at once; the wall time and the sandbox's 429s. */
async function burst(mode: 'redis' | 'local', sandbox: Sandbox, redis: RedisServer, windowMs: number, processes: number, calls: number) {
  const workers: ChildProcess[] = [];
  // One namespace for the whole fleet of this run.
  const namespace = `bench-${mode}-${Date.now()}`;
  try {
    const outcomes: Array<Promise<{ failed: number }>> = [];
    const ready: Array<Promise<void>> = [];
    for (let i = 0; i < processes; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/lib/fleet-worker.ts')], {
        cwd: ROOT,
        env: {
          ...process.env,
          FLEET_MODE: mode,
          FLEET_SANDBOX_URL: sandbox.url,
          FLEET_KEY: sandbox.key,
          FLEET_SECRET: sandbox.secret,
          FLEET_REDIS_PORT: String(redis.port),
          FLEET_NAMESPACE: namespace,
          FLEET_LIMIT: String(LIMIT),
          FLEET_WINDOW_MS: String(windowMs),
          FLEET_CALLS: String(calls),
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      workers.push(child);
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
      const line = async (): Promise<string> => {
        const next = await lines.next();
        if (next.done) throw new Error(`a ${mode} worker exited early`);
        return next.value;
      };
      const readied = line().then(() => undefined);
      ready.push(readied);
      outcomes.push(readied.then(line).then((text) => JSON.parse(text) as { failed: number }));
    }
    await Promise.all(ready);
    // A fresh sandbox window for the burst, and an empty request log to count it.
    await sleep(windowMs + 100);
    await fetch(`${sandbox.url}/_sandbox/requests`, { method: 'DELETE' });
    const start = performance.now();
    for (const worker of workers) worker.stdin?.write('go\n');
    const results = await Promise.all(outcomes);
    const wallMs = performance.now() - start;
    const log = ((await (await fetch(`${sandbox.url}/_sandbox/requests`)).json()) as { requests: Array<{ path: string; status: number }> }).requests;
    return {
      wallMs,
      throttled: log.filter((entry) => entry.path.startsWith('/api/') && entry.status === 429).length,
      failed: results.reduce((sum, result) => sum + result.failed, 0),
    };
  } finally {
    for (const worker of workers) worker.kill('SIGKILL');
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

async function pacingRows(config: FigureConfig, redis: RedisServer): Promise<Row[]> {
  const windowMs = config.quick ? 250 : 1_000;
  const processes = config.quick ? 2 : 4;
  const calls = 150;
  const total = processes * calls;
  const figure = `11. fleet: ${processes} processes × ${calls} calls, sandbox at ${LIMIT} per ${windowMs} ms (scaled window)`;
  const sandboxServer = await startServer<Sandbox>(['sandbox', String(windowMs)]);
  try {
    const local = await burst('local', sandboxServer.info, redis, windowMs, processes, calls);
    // The sandbox's windows of the first run are over before the second starts (burst waits one).
    const shared = await burst('redis', sandboxServer.info, redis, windowMs, processes, calls);
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
  } finally {
    await sandboxServer.stop();
  }
}

async function limiterRows(config: FigureConfig, redis: RedisServer, fleet: Fleet, sdk: Sdk): Promise<Row[]> {
  const connection = redis.client();
  const rows: Row[] = [];
  // Acquire overhead: a limit no run reaches, so every acquire is one script run.
  const limiter = new fleet.RedisRateLimiter({ redis: connection, namespace: 'bench-acquire', account: UNREACHED_RATE_LIMIT.account });
  const samples: number[] = [];
  const count = config.quick ? 300 : 5_000;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await limiter.acquire('GET /api/v1.1/sims');
    samples.push((performance.now() - start) * 1000);
    limiter.release('GET /api/v1.1/sims', start, undefined);
  }
  limiter.close();
  samples.sort((a, b) => a - b);
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
    note: `p99 ${percentile(samples, 0.99).toFixed(0)} µs over ${count} sequential acquires`,
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

async function dedupeRows(config: FigureConfig, redis: RedisServer, fleet: Fleet, hooks: Hooks): Promise<Row[]> {
  const events = config.quick ? 100 : 1_000;
  const secret = `whsec_${'b7'.repeat(32)}`;
  const handled = new Map<string, number>();
  const servers: Server[] = [];
  const urls: string[] = [];
  const namespace = `bench-dedupe-${Date.now()}`;
  for (let i = 0; i < 4; i++) {
    const dedupe = hooks.createDeduplicator({ store: new fleet.RedisDedupeStore({ redis: redis.client(), namespace }) });
    const handler = hooks.createNodeHandler({
      secret,
      dedupe,
      onEvent: (event: { id: string }) => {
        handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
      },
    });
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  }
  try {
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
  } finally {
    for (const server of servers) server.close();
  }
  const total = [...handled.values()].reduce((sum, count) => sum + count, 0);
  return [
    {
      id: 'fleet.dedupe',
      figure: `11. fleet: 4 receivers, ${events} events each delivered twice to two of them, events handled`,
      value: total,
      baseline: events,
      unit: 'events',
      baselineLabel: 'distinct events',
      ratio: total / events,
      goal: `= ${events}`,
      met: total === events && handled.size === events,
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
    return [
      ...(await pacingRows(config, redis)),
      ...(await limiterRows(config, redis, fleet, sdk)),
      ...(await dedupeRows(config, redis, fleet, hooks)),
    ];
  } finally {
    await redis.stop();
  }
}
