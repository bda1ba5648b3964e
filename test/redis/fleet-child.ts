/**
 * One process of a fleet, run by fleet.test.ts: a client on the shared sandbox whose limiter is a
 * RedisRateLimiter on the shared Redis. Prints `ready` once warmed up (token in hand), waits for
 * `go` on stdin, makes FLEET_CALLS calls to FLEET_PATH at once, and prints the outcome as JSON.
 */
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { PartnerClient } from '../../src/index.js';
import { RedisRateLimiter } from '../../src/redis/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const windowMs = Number(env('FLEET_WINDOW_MS'));
const redis = new Redis(Number(env('FLEET_REDIS_PORT')), '127.0.0.1', { commandTimeout: 500, maxRetriesPerRequest: 1 });
redis.on('error', () => {});
const client = new PartnerClient({
  baseUrl: env('FLEET_SANDBOX_URL'),
  key: env('FLEET_KEY'),
  secret: env('FLEET_SECRET'),
  rateLimit: new RedisRateLimiter({ redis, namespace: env('FLEET_NAMESPACE'), account: { limit: Number(env('FLEET_LIMIT')), windowMs } }),
});
const path = env('FLEET_PATH');
await client.auth.token();
process.stdout.write('ready\n');
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));
const outcomes = await Promise.allSettled(Array.from({ length: Number(env('FLEET_CALLS')) }, () => client.request({ method: 'GET', path })));
const failed = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String(outcome.reason));
process.stdout.write(`${JSON.stringify({ answered: outcomes.length - failed.length, failed })}\n`);
await client.close();
redis.disconnect();
