/**
 * One process of a fleet, run by fleet.test.ts: a client on the shared sandbox whose limiter is a
 * RedisRateLimiter on the shared Redis. Prints `ready` once warmed up (token in hand); then, for
 * each `go` line on stdin, makes FLEET_CALLS calls to FLEET_PATH (at once, or FLEET_CONCURRENCY at
 * a time) and prints the outcome as JSON. Exits when stdin ends.
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
const calls = Number(env('FLEET_CALLS'));
const concurrency = Number(process.env['FLEET_CONCURRENCY'] ?? calls);

async function batch(): Promise<{ answered: number; failed: string[] }> {
  let next = 0;
  let answered = 0;
  const failed: string[] = [];
  const worker = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      try {
        await client.request({ method: 'GET', path });
        answered += 1;
      } catch (error) {
        failed.push(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, worker));
  return { answered, failed };
}

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line !== 'go') continue;
  process.stdout.write(`${JSON.stringify(await batch())}\n`);
}
await client.close();
redis.disconnect();
