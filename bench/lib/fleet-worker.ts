/**
 * One process of the fleet figure: a client of the built package on the bench sandbox, limited by
 * a RedisRateLimiter (FLEET_MODE=redis) or by its own in-process limiter (FLEET_MODE=local). Prints
 * `ready` with its token in hand, waits for a line on stdin, sends FLEET_CALLS calls at once and
 * prints `{ failed }`.
 */
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
  RedisRateLimiter: new (options: Record<string, unknown>) => unknown;
};
const account = { limit: Number(env('FLEET_LIMIT')), windowMs: Number(env('FLEET_WINDOW_MS')) };
const redis = env('FLEET_MODE') === 'redis' ? new Redis(Number(env('FLEET_REDIS_PORT')), '127.0.0.1', { commandTimeout: 1000 }) : undefined;
redis?.on('error', () => {});
const client = new sdk.PartnerClient({
  baseUrl: env('FLEET_SANDBOX_URL'),
  key: env('FLEET_KEY'),
  secret: env('FLEET_SECRET'),
  rateLimit: redis ? new fleet.RedisRateLimiter({ redis, namespace: env('FLEET_NAMESPACE'), account }) : { account },
});
const call = () => client.request({ method: 'GET', path: '/api/v1.1/sims', query: { pageSize: 1 } });
await call();
process.stdout.write('ready\n');
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));
const outcomes = await Promise.allSettled(Array.from({ length: Number(env('FLEET_CALLS')) }, call));
const failed = outcomes.filter((outcome) => outcome.status === 'rejected').length;
process.stdout.write(`${JSON.stringify({ failed })}\n`);
await client.close();
redis?.disconnect();
