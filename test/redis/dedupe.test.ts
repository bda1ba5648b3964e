/**
 * RedisDedupeStore across receiver replicas in processes of their own: every delivery is sent
 * twice, to two different replicas, at once, and each event is handled exactly once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { RedisDedupeStore } from '../../src/redis/index.js';
import { type CompiledScripts, compileScripts } from '../helpers/bundle.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { postSigned, secret } from '../webhooks/helpers.js';

const CHILD = 'test/redis/receiver-child.ts';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let redis: RedisServer;
/** The replica compiled once for plain `node`. */
let compiled: CompiledScripts;
const replicas: ChildProcess[] = [];

beforeAll(async () => {
  [redis, compiled] = await Promise.all([startRedis(), compileScripts([CHILD])]);
});

afterAll(async () => {
  await Promise.all(
    replicas.map(async (child) => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
  await redis.stop();
  compiled.remove();
});

async function replica(list: string): Promise<string> {
  const child = spawn(process.execPath, [compiled.path(CHILD)], {
    cwd: ROOT,
    env: { ...process.env, RECEIVER_REDIS_PORT: String(redis.port), RECEIVER_SECRET: secret, RECEIVER_LIST: list },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  replicas.push(child);
  const [url] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [string];
  return url;
}

describe('RedisDedupeStore', () => {
  it('has three replicas handle each of 60 events exactly once when every delivery reaches two of them', async () => {
    const list = 'handled';
    const urls = await Promise.all([replica(list), replica(list), replica(list)]);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const body = JSON.stringify({ id: `vqt_${i}`, event: 'voice.test.completed' });
        return Promise.all([postSigned(urls[i % 3] as string, body), postSigned(urls[(i + 1) % 3] as string, body)]);
      }),
    );
    for (const pair of answers) {
      expect(pair.map((answer) => answer.status)).toEqual([200, 200]);
      expect(pair.filter((answer) => answer.body['duplicate'] === true)).toHaveLength(1);
    }
    const handled = await redis.client().lrange(list, 0, -1);
    expect(handled).toHaveLength(60);
    expect(new Set(handled).size).toBe(60);
  });

  it('stores keys under its namespace with the TTL asked, and forgets a key on delete', async () => {
    const client = redis.client();
    const store = new RedisDedupeStore({ redis: client, namespace: 'ttl' });
    expect(await store.setIfAbsent('voice.test.completed:vqt_1', 5_000)).toBe(true);
    expect(await store.setIfAbsent('voice.test.completed:vqt_1', 5_000)).toBe(false);
    const ttl = await client.pttl('ttl:dedupe:voice.test.completed:vqt_1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    await store.delete('voice.test.completed:vqt_1');
    expect(await store.setIfAbsent('voice.test.completed:vqt_1', 5_000)).toBe(true);
  });

  it('rejects when Redis is gone, so the adapter answers 500 and the sender delivers again', async () => {
    const store = new RedisDedupeStore({ redis: redis.client({ maxRetriesPerRequest: 0 }), namespace: 'gone' });
    await redis.kill();
    try {
      await expect(store.setIfAbsent('voice.test.completed:vqt_x', 1_000)).rejects.toThrow();
    } finally {
      await redis.start();
    }
  });

  it('refuses a client that is not a Redis client, naming the option', () => {
    expect(() => new RedisDedupeStore({ redis: {} as never })).toThrow(ConfigurationError);
    expect(() => new RedisDedupeStore({ redis: {} as never })).toThrow(/option redis: must be an ioredis client/);
  });
});
