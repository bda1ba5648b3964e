/**
 * RedisDedupeStore across receiver replicas in processes of their own (every delivery is sent
 * twice, to two different replicas, at once, and each event is handled exactly once), and in this
 * process when Redis fails, refuses writes or runs a command late around a handler.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { RedisDedupeStore, RedisRateLimiter } from '../../src/redis/index.js';
import type { RedisDedupeStoreOptions } from '../../src/redis/index.js';
import { createDeduplicator, createNodeHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { type CompiledScripts, compileScripts } from '../helpers/bundle.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { postSigned, secret } from '../webhooks/helpers.js';

const CHILD = 'test/redis/receiver-child.ts';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let redis: RedisServer;
/** The replica compiled once for plain `node`. */
let compiled: CompiledScripts;
const replicas: ChildProcess[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  [redis, compiled] = await Promise.all([startRedis(), compileScripts([CHILD])]);
});

afterAll(async () => {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise((resolve) => {
          // A handler a failed test left pending must not hold the server open.
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
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
    for (const [i, pair] of answers.entries()) {
      // One copy is handled; the other is a duplicate, or refused 409 while the first is being
      // handled, and then a duplicate when the sender delivers it again.
      expect(pair.filter((answer) => answer.body['received'] === true && answer.body['duplicate'] === undefined)).toHaveLength(1);
      const other = pair.find((answer) => answer.body['duplicate'] === true || answer.status !== 200);
      if (other?.status === 409) {
        const body = JSON.stringify({ id: `vqt_${i}`, event: 'voice.test.completed' });
        expect((await postSigned(urls[(i + 2) % 3] as string, body)).body).toEqual({ received: true, duplicate: true });
      } else {
        expect(other).toEqual({ status: 200, body: { received: true, duplicate: true } });
      }
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
    // The key and its TTL are what the fleet guide documents: `namespace:dedupe:{type}:{id}`, `ttlMs`.
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

  it('refuses a command timeout that is not a whole number of milliseconds, in the store and the limiter alike', () => {
    for (const make of [
      () => new RedisDedupeStore({ redis: redis.client(), commandTimeoutMs: 0 }),
      () => new RedisRateLimiter({ redis: redis.client(), commandTimeoutMs: Number.POSITIVE_INFINITY }),
    ]) {
      expect(make).toThrow(ConfigurationError);
      expect(make).toThrow(/option commandTimeoutMs: must be a whole number of milliseconds/);
    }
  });

  it('refuses a client that is not a Redis client, naming the option', () => {
    expect(() => new RedisDedupeStore({ redis: {} as never })).toThrow(ConfigurationError);
    expect(() => new RedisDedupeStore({ redis: {} as never })).toThrow(/option redis: must be an ioredis client/);
  });

  it('refuses each option it cannot use with a ConfigurationError naming the store and the option', () => {
    const client = redis.client();
    const refusals: Array<[unknown, string]> = [
      [undefined, 'redis'],
      [{ redis: client, namespace: 'two words' }, 'namespace'],
      [{ redis: client, commandTimeoutMs: 1.5 }, 'commandTimeoutMs'],
      [{ redis: client, nope: true }, 'nope'],
      // A done key's TTL of its own: a whole number of milliseconds, at least 1.
      ...[0, -1, 0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '60000'].map((ttlMs): [unknown, string] => [{ redis: client, ttlMs }, 'ttlMs']),
    ];
    for (const [options, option] of refusals) {
      let caught: unknown;
      try {
        new RedisDedupeStore(options as RedisDedupeStoreOptions);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(options ?? null)).toBeInstanceOf(ConfigurationError);
      expect((caught as ConfigurationError).message).toMatch(new RegExp(`^(invalid|unknown) RedisDedupeStore option ${option}\\b`));
      expect(caught).toMatchObject({ code: 'CONFIGURATION_ERROR', option });
    }
    expect(() => new RedisDedupeStore({ redis: client, ttlMs: 1 })).not.toThrow();
  });

  it('keeps every key it records for its own ttlMs when given one, whatever the deduplicator asks', async () => {
    const client = redis.client();
    const store = new RedisDedupeStore({ redis: client, namespace: 'own-ttl', ttlMs: 7_000 });
    expect(await store.setIfAbsent('voice.test.completed:vqt_1', 60_000)).toBe(true);
    expect(await store.claim('voice.test.completed:vqt_2', 'token-2', 60_000)).toBe('claimed');
    await store.markDone('voice.test.completed:vqt_2', 60_000);
    for (const key of ['own-ttl:dedupe:voice.test.completed:vqt_1', 'own-ttl:dedupe:voice.test.completed:vqt_2']) {
      const ttl = await client.pttl(key);
      expect(ttl, key).toBeGreaterThan(6_000);
      expect(ttl, key).toBeLessThanOrEqual(7_000);
    }
  });

  it('refuses a script reply outside its contract with an error naming the script', async () => {
    const client = redis.client();
    // A connection that answers every script with 2, the rest as Redis does.
    const odd = new Proxy(client, {
      get: (target, name, receiver) => (name === 'evalsha' ? async () => 2 : Reflect.get(target, name, receiver)),
    });
    const store = new RedisDedupeStore({ redis: odd, namespace: 'odd' });
    await expect(store.claim('voice.test.completed:vqt_1', 'token', 1_000)).rejects.toThrow(/Redis answered the claim script with/);
    await expect(store.markDone('voice.test.completed:vqt_1', 1_000)).rejects.toThrow(/Redis answered the mark-done script with/);
    await expect(store.delete('voice.test.completed:vqt_1', 'token')).rejects.toThrow(/Redis answered the release script with/);
  });
});

describe('RedisDedupeStore when Redis fails around a handler', () => {
  let namespaces = 0;

  /** A receiver in this process on 127.0.0.1: the Node adapter with a deduplicator on the shared Redis. */
  async function receiver(
    onEvent: (event: WebhookEvent) => unknown,
    options: { leaseMs: number; store?: Omit<RedisDedupeStoreOptions, 'redis'> },
  ): Promise<string> {
    const store = new RedisDedupeStore({ redis: redis.client(), namespace: `fails-${namespaces++}`, ...options.store });
    const handler = createNodeHandler({
      secret,
      dedupe: createDeduplicator({ store, leaseMs: options.leaseMs }),
      onEvent,
      onError: () => {},
    });
    const server = createServer((request, response) => void handler(request, response));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  /** Redis refuses every write (as a primary that lost its replicas does) until `writable()`. */
  async function refuseWrites(): Promise<void> {
    await redis.client().config('SET', 'min-replicas-to-write', '1');
  }
  async function writable(): Promise<void> {
    await redis.client().config('SET', 'min-replicas-to-write', '0');
  }

  /**
   * Delivers `body` again every 20 ms, as the sender retries, until a 2xx (each refusal must not
   * be a 2xx); fails after 150 deliveries, far past the leases these tests use.
   */
  async function redeliver(url: string, body: string): Promise<{ status: number; body: Record<string, unknown>; refused: number[] }> {
    const refused: number[] = [];
    while (refused.length < 150) {
      const answer = await postSigned(url, body);
      if (answer.status < 300) return { ...answer, refused };
      refused.push(answer.status);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`never answered 2xx: ${refused.length} refusals, the last ${String(refused.at(-1))}`);
  }

  const delivery = (id: string): string => JSON.stringify({ id, event: 'voice.test.completed' });

  it.each([
    ['one receiver', false],
    ['two receivers', true],
  ])('never lets a redelivery that fails after its lease-expired twin succeeded undo the done record (%s)', async (_, twoReceivers) => {
    const namespace = `late-${namespaces++}`;
    const outcomes: Array<() => void> = [];
    let handled = 0;
    const onEvent = async (): Promise<void> => {
      handled += 1;
      const call = handled;
      if (call > 3) return;
      await new Promise<void>((resolve) => outcomes.push(resolve));
      if (call === 2) throw new Error('the redelivery fails');
    };
    const urlA = await receiver(onEvent, { leaseMs: 300, store: { namespace } });
    const urlB = twoReceivers ? await receiver(onEvent, { leaseMs: 300, store: { namespace } }) : urlA;
    const body = delivery('vqt_lease');
    const a = postSigned(urlA, body);
    await vi.waitFor(() => expect(handled).toBe(1));
    // A outlives its lease; the redelivery B claims the event and runs the handler too.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const b = postSigned(urlB, body);
    await vi.waitFor(() => expect(handled).toBe(2));
    outcomes[0]?.();
    expect(await a).toEqual({ status: 200, body: { received: true } });
    // B's receiver goes on with other events past B's lease.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const other = postSigned(urlB, delivery('vqt_busy'));
    await vi.waitFor(() => expect(handled).toBe(3));
    outcomes[2]?.();
    expect((await other).status).toBe(200);
    outcomes[1]?.();
    expect((await b).status).toBe(500);
    expect(await redis.client().get(`${namespace}:dedupe:voice.test.completed:vqt_lease`)).toBe('done');
    expect(await postSigned(urlA, body)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(handled).toBe(3);
  });

  it('answers 500 to a handler that fails while its claim cannot be given back, and the redelivery runs the handler', async () => {
    let handled = 0;
    const url = await receiver(
      async () => {
        handled += 1;
        if (handled === 1) {
          await refuseWrites();
          throw new Error('handler failed');
        }
      },
      { leaseMs: 300 },
    );
    try {
      expect((await postSigned(url, delivery('vqt_release'))).status).toBe(500);
    } finally {
      await writable();
    }
    // The claim outlives the failed release by its lease at most: redeliveries meanwhile are refused, not answered 2xx.
    const answer = await redeliver(url, delivery('vqt_release'));
    expect(answer.body).toEqual({ received: true });
    expect(answer.refused.every((status) => status === 409)).toBe(true);
    expect(handled).toBe(2);
  });

  it('answers 500 to a handler that succeeds while the event cannot be recorded as handled, and handles the redelivery', async () => {
    let handled = 0;
    const url = await receiver(
      async () => {
        handled += 1;
        if (handled === 1) await refuseWrites();
      },
      { leaseMs: 300 },
    );
    try {
      expect((await postSigned(url, delivery('vqt_done'))).status).toBe(500);
    } finally {
      await writable();
    }
    expect((await redeliver(url, delivery('vqt_done'))).body).toEqual({ received: true });
    expect(handled).toBe(2);
    // Recorded as handled now: a repeat is a duplicate.
    expect((await postSigned(url, delivery('vqt_done'))).body).toEqual({ received: true, duplicate: true });
    expect(handled).toBe(2);
  });

  it('gives back a claim Redis records after the store stopped waiting for it: the redelivery is handled, not held for the lease', async () => {
    let handled = 0;
    const url = await receiver(() => void (handled += 1), { leaseMs: 600_000, store: { commandTimeoutMs: 100 } });
    // Writes wait 500 ms: the claim times out on the receiver's side and is recorded by Redis afterwards.
    await redis.client().call('CLIENT', 'PAUSE', '500', 'WRITE');
    expect((await postSigned(url, delivery('vqt_late'))).status).toBe(500);
    expect(handled).toBe(0);
    // A write sent now runs after the held ones.
    await redis.client().set('caught-up', '1');
    const answer = await redeliver(url, delivery('vqt_late'));
    expect(answer.body).toEqual({ received: true });
    expect(handled).toBe(1);
  });

  it('answers 409 to a repeat that arrives while the first delivery is still being handled, and 200 duplicate once it is done', async () => {
    let finish = (): void => undefined;
    const running = new Promise<void>((resolve) => (finish = resolve));
    let handled = 0;
    const url = await receiver(
      async () => {
        handled += 1;
        await running;
      },
      { leaseMs: 600_000 },
    );
    const first = postSigned(url, delivery('vqt_slow'));
    try {
      await vi.waitFor(() => expect(handled).toBe(1));
      expect(await postSigned(url, delivery('vqt_slow'))).toEqual({ status: 409, body: { error: 'in_progress' } });
    } finally {
      finish();
    }
    expect((await first).status).toBe(200);
    expect((await postSigned(url, delivery('vqt_slow'))).body).toEqual({ received: true, duplicate: true });
    expect(handled).toBe(1);
  });
});
