/**
 * One process of the fleet figure, on the built package. FLEET_MODE:
 * - `redis` / `local`: a client on the bench sandbox limited by a RedisRateLimiter or by its own
 *   in-process limiter. Prints `ready` with its token in hand and waits for a line on stdin. Then
 *   either sends FLEET_CALLS calls at once and prints `{ failed }`, or, with FLEET_DURATION_MS,
 *   keeps FLEET_CONCURRENCY calls going for that long and prints `{ calls, settled, failed }`
 *   once they settle or FLEET_GRACE_MS has passed (what is still pending then is hung).
 * - `hold`: a bare RedisRateLimiter takes FLEET_CALLS slots, never gives them back, prints `held`
 *   and waits to be killed.
 * - `receive`: a webhook receiver replica (the Node adapter, a deduplicator on a RedisDedupeStore
 *   in FLEET_NAMESPACE, signing secret FLEET_SECRET) on 127.0.0.1; each event it handles is
 *   pushed to the Redis list FLEET_NAMESPACE:handled. Prints its URL and waits to be killed.
 */
import { createServer } from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { ROOT } from './client.js';

const env = (name: string): string => process.env[name] ?? '';
const dist = env('BENCH_DIST_DIR') || path.join(ROOT, 'dist');
const sdk = (await import(pathToFileURL(path.join(dist, 'index.js')).href)) as {
  PartnerClient: new (options: Record<string, unknown>) => {
    request(input: { method: 'GET'; path: string; query: Record<string, number> }): Promise<unknown>;
    close(): Promise<void>;
  };
};
const fleet = (await import(pathToFileURL(path.join(dist, 'redis/index.js')).href)) as {
  RedisRateLimiter: new (options: Record<string, unknown>) => { acquire(route: string): Promise<void> | undefined };
  RedisDedupeStore: new (options: Record<string, unknown>) => unknown;
};
const mode = env('FLEET_MODE');
const account = { limit: Number(env('FLEET_LIMIT')), windowMs: Number(env('FLEET_WINDOW_MS')) };
const redis =
  mode === 'local' ? undefined : new Redis(Number(env('FLEET_REDIS_PORT')), '127.0.0.1', { commandTimeout: 1000, maxRetriesPerRequest: 1 });
redis?.on('error', () => {});
const limiter = redis && mode !== 'receive' ? new fleet.RedisRateLimiter({ redis, namespace: env('FLEET_NAMESPACE'), account }) : undefined;
const calls = Number(env('FLEET_CALLS'));

if (mode === 'receive' && redis) {
  const hooks = (await import(pathToFileURL(path.join(dist, 'webhooks/index.js')).href)) as {
    createNodeHandler(options: Record<string, unknown>): (req: unknown, res: unknown) => Promise<void>;
    createDeduplicator(options: Record<string, unknown>): unknown;
  };
  const namespace = env('FLEET_NAMESPACE');
  const handler = hooks.createNodeHandler({
    secret: env('FLEET_SECRET'),
    dedupe: hooks.createDeduplicator({ store: new fleet.RedisDedupeStore({ redis, namespace }) }),
    onEvent: async (event: { id: string }) => {
      await redis.rpush(`${namespace}:handled`, event.id);
    },
  });
  const server = createServer((req, res) => void handler(req, res));
  server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as { port: number }).port}\n`));
  await new Promise(() => undefined);
}

if (mode === 'hold') {
  for (let i = 0; i < calls; i++) await limiter?.acquire(env('FLEET_ROUTE'));
  process.stdout.write('held\n');
  // Killed by the figure; the lease keeps being renewed only while this process lives.
  await new Promise(() => undefined);
}

const client = new sdk.PartnerClient({
  baseUrl: env('FLEET_SANDBOX_URL'),
  key: env('FLEET_KEY'),
  secret: env('FLEET_SECRET'),
  rateLimit: limiter ?? { account },
});
const call = () => client.request({ method: 'GET', path: '/api/v1.1/sims', query: { pageSize: 1 } });
await call();
process.stdout.write('ready\n');
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));

if (env('FLEET_DURATION_MS')) {
  const until = performance.now() + Number(env('FLEET_DURATION_MS'));
  let started = 0;
  let settled = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < until) {
      started += 1;
      await call().catch(() => (failed += 1));
      settled += 1;
    }
  };
  const all = Promise.all(Array.from({ length: Number(env('FLEET_CONCURRENCY')) }, worker));
  await Promise.race([all, new Promise((resolve) => setTimeout(resolve, Number(env('FLEET_DURATION_MS')) + Number(env('FLEET_GRACE_MS'))))]);
  process.stdout.write(`${JSON.stringify({ calls: started, settled, failed })}\n`);
  process.exit(0);
}

const outcomes = await Promise.allSettled(Array.from({ length: calls }, call));
const failed = outcomes.filter((outcome) => outcome.status === 'rejected').length;
process.stdout.write(`${JSON.stringify({ failed })}\n`);
await client.close();
redis?.disconnect();
