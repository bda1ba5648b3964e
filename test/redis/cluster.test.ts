/**
 * Fleet mode on a real Redis Cluster: three masters with a replica each. Two limiters (two
 * processes of the fleet, each with its own Cluster client) share the sandbox's account; the
 * master serving the account's keys is killed mid-burst, and a replica takes over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { RedisDedupeStore, RedisRateLimiter } from '../../src/redis/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { type RedisCluster, startRedisCluster } from '../helpers/redis.js';

/** The sandbox's window, and the limiters': short, so that a burst spans a few windows. */
const WINDOW_MS = 1_000;
const LIMIT = 120;

let cluster: RedisCluster | undefined;
let sandbox: SandboxHandle | undefined;
const clients: PartnerClient[] = [];

beforeAll(async () => {
  // One after the other, so that afterAll stops whichever started when the other fails.
  cluster = await startRedisCluster();
  sandbox = await startSandbox({ port: 0, rateLimitWindowMs: WINDOW_MS });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await sandbox?.close();
  await cluster?.stop();
});

function member(namespace: string): PartnerClient {
  const target = sandbox as SandboxHandle;
  const redis = (cluster as RedisCluster).client({ redisOptions: { commandTimeout: 500, maxRetriesPerRequest: 1 } });
  const client = new PartnerClient({
    baseUrl: target.url,
    key: target.key,
    secret: target.secret,
    rateLimit: new RedisRateLimiter({ redis, namespace, account: { limit: LIMIT, windowMs: WINDOW_MS } }),
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  clients.push(client);
  return client;
}

const listSims = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/sims', query: { pageSize: 1 } });

async function throttled(): Promise<number> {
  const stats = (await (await fetch(`${(sandbox as SandboxHandle).url}/_sandbox/stats`)).json()) as { counters: Record<string, number> };
  return stats.counters['rateLimit.throttled'] ?? 0;
}

/** `count` calls spread over the fleet, all at once; resolves with the failures. */
async function burst(fleet: PartnerClient[], count: number): Promise<unknown[]> {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, (_, i) => listSims(fleet[i % fleet.length] as PartnerClient)));
  return outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
}

describe('fleet mode on a Redis Cluster', () => {
  it('keeps two processes to the account limit across the cluster, through a crashed master and its failover', async () => {
    const nodes = cluster as RedisCluster;
    const fleet = [member('cluster'), member('cluster')];
    await Promise.all(fleet.map(listSims));
    // A fresh sandbox window for the burst.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 50));
    const before = await throttled();
    expect(await burst(fleet, 250)).toEqual([]);
    expect(await throttled()).toBe(before);

    // The account's keys share one hash tag, so one master serves them all: find it by the
    // namespace's documented prefix (`namespace:{account}:…`), then crash it mid-burst.
    const account = await accountTag(nodes);
    const master = await nodes.masterOf(`cluster:{${account}}:rl:account`);
    let settled = 0;
    const during = Promise.allSettled(Array.from({ length: 250 }, (_, i) => listSims(fleet[i % 2] as PartnerClient).finally(() => (settled += 1))));
    while (settled < 50) await new Promise((resolve) => setTimeout(resolve, 10));
    await nodes.crash(master);
    // Every call settles: answered, or out of retries on a 429 drawn while each process limited itself alone.
    const outcomes = await during;
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(String(outcome.reason)).toMatch(/^RateLimitError/);
    }
    await nodes.healthy();
    expect(await nodes.masterOf(`cluster:{${account}}:rl:account`)).not.toBe(master);
    // Past the fallback's second and a window, the processes share the new master's window: no 429.
    await new Promise((resolve) => setTimeout(resolve, 1_200 + WINDOW_MS));
    await Promise.all(fleet.map(listSims));
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 50));
    const after = await throttled();
    expect(await burst(fleet, 250)).toEqual([]);
    expect(await throttled()).toBe(after);
  }, 60_000);

  it('deduplicates on the cluster: a claim, a done record, a duplicate', async () => {
    const store = new RedisDedupeStore({ redis: (cluster as RedisCluster).client(), namespace: 'cluster-dedupe' });
    expect(await store.claim('voice.test.completed:vqt_c', 'token', 10_000)).toBe('claimed');
    expect(await store.claim('voice.test.completed:vqt_c', 'other', 10_000)).toBe('processing');
    await store.markDone('voice.test.completed:vqt_c', 60_000);
    expect(await store.claim('voice.test.completed:vqt_c', 'other', 10_000)).toBe('done');
  });
});

/** The account's hash tag, read off the namespace's keys (`namespace:{account}:…`). */
async function accountTag(nodes: RedisCluster): Promise<string> {
  const tags = (await nodes.keys('cluster:{*')).map((key) => /\{(\w+)\}/.exec(key)?.[1]);
  const tag = tags.find((one) => one !== undefined);
  if (!tag) throw new Error('no key of the namespace found on any node');
  return tag;
}
