/**
 * The fleet guide's tables, held to RedisRateLimiter and RedisDedupeStore on a real redis-server:
 * "key | holds | TTL" (every key the fleet classes write matches a row, every row is written, and
 * each key's type and time to live, read right after each command, are what its row says), and
 * "Redis is… | the limiter | the dedupe store" (what the classes do when Redis is away or has lost
 * its data, the parts a test can provoke; the late answers of a slow Redis are fleet.test.ts's
 * and dedupe.test.ts's). The guide's "Figures" table is measurements of a benchmark run, not
 * behaviour: not checked.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { RedisDedupeStore, RedisRateLimiter, type RedisConnection } from '../../src/redis/index.js';
import { GATE_KEYS } from '../../src/redis/scripts.js';
import { createDeduplicator, createNodeHandler, signPayload, type WebhookEvent } from '../../src/webhooks/index.js';
import { STORE_RETRY_AFTER_MS } from '../../src/core/defaults.js';
import { secret } from '../webhooks/helpers.js';
import { marginMs } from '../../src/core/window-gate.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { fail, listen, type Loopback, ok, startTestServer, type TestServer } from '../helpers/server.js';
import { KEY, SECRET } from '../helpers/server-client.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

const WINDOW_MS = 2000;
const RETRY_AFTER_MS = 1000;
const LEASE_MS = 5000;
const DAY_MS = 86_400_000;

/** What a key held right after a command touched it. */
interface Seen {
  key: string;
  type: string;
  ttlMs: number;
  value: string | null;
  /** For a sorted set, its highest score minus the server's time then (ms). */
  scoreAheadMs: number | null;
}

let redis: RedisServer;
let server: TestServer;
let observer: Redis;
const seen: Seen[] = [];

/** Reads each key the way it is right after the command, on a client of the test's own. */
async function look(keys: string[]): Promise<void> {
  for (const key of keys) {
    const [type, ttlMs] = await Promise.all([observer.type(key), observer.pttl(key)]);
    const value = type === 'string' ? await observer.get(key) : null;
    // A sorted set's top score and the clock in one transaction: a run that moves the score
    // between two separate reads would make it look further ahead than any run set it.
    let top: string[] = [];
    let time: string[];
    if (type === 'zset') {
      const [ranged, timed] = (await observer.multi().zrange(key, '-1', '-1', 'WITHSCORES').time().exec()) ?? [];
      [top, time] = [ranged?.[1] as string[], timed?.[1] as string[]];
    } else {
      time = await observer.time().then((reply) => reply.map(String));
    }
    const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
    seen.push({ key, type, ttlMs, value, scoreAheadMs: top[1] === undefined ? null : Number(top[1]) - now });
  }
}

/** A connection that runs each command on `client`, then looks at the keys it named before answering. */
function watched(client: Redis): RedisConnection {
  const after = <T>(keys: string[], command: Promise<T>): Promise<T> =>
    command.then(async (result) => {
      await look(keys);
      return result;
    });
  return {
    evalsha: (sha1, numkeys, ...args) => after(args.slice(0, numkeys).map(String), client.evalsha(sha1, numkeys, ...args)),
    eval: (script, numkeys, ...args) => after(args.slice(0, numkeys).map(String), client.eval(script, numkeys, ...args)),
    set: (key, value, px, ms, nx) => after([key], client.set(key, value, px, ms, nx)),
    del: (...keys) => after(keys, client.del(...keys)),
  };
}

/** A key as the table writes it, as a pattern: `{account}` the account digest, `…` and other placeholders anything. */
function pattern(written: string): RegExp {
  const literal = written
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\\\{account\\\}/g, '\\{[0-9a-f]{16}\\}')
    .replace(/…|\\\{[^}]*\\\}/g, '.+');
  return new RegExp(`^${literal}$`);
}

/** Whether a time to live fits what a TTL cell says. */
function fitsTtl(cell: string, ttlMs: number): boolean {
  // A slot frees at an instant rounded up to the window's step (a thousandth of it), margin included.
  const windowMs = WINDOW_MS + marginMs(WINDOW_MS) + Math.max(1, WINDOW_MS / 1000);
  const rules: Record<string, () => boolean> = {
    'a window': () => ttlMs <= windowMs,
    'a window and a second': () => ttlMs <= windowMs + 1000,
    'a window and a minute': () => ttlMs > 60_000 && ttlMs <= windowMs + 60_000,
    'the pause': () => ttlMs <= RETRY_AFTER_MS,
    '`leaseMs`, then `ttlMs` (one day)': () => ttlMs <= LEASE_MS || (ttlMs > LEASE_MS && ttlMs <= DAY_MS),
  };
  const fixed = /^(\d+) ms( and a second)?$/.exec(cell);
  if (fixed) return ttlMs <= Number(fixed[1]) + (fixed[2] ? 1000 : 0);
  const rule = rules[cell];
  if (!rule) throw new Error(`a TTL this test cannot read: ${cell}`);
  return rule();
}

/** The Redis type a holds cell names for its n-th key: `(hash)`, `(sorted set)`, `(hash, sorted set)`. */
function typeOf(holds: string, index: number): string | undefined {
  const types = /\(([a-z ,]+)\)$/.exec(holds)?.[1]?.split(', ');
  const name = types?.[Math.min(index, (types?.length ?? 1) - 1)];
  return name === undefined ? undefined : ({ hash: 'hash', 'sorted set': 'zset' } as Record<string, string>)[name];
}

describe("the fleet guide's table of Redis keys", () => {
  beforeAll(async () => {
    redis = await startRedis();
    observer = redis.client();
    server = await startTestServer();
    const limits = { account: { limit: 32, windowMs: WINDOW_MS }, endpoints: { 'POST /api/v1.1/sms': { limit: 16, windowMs: WINDOW_MS } } };
    const client = new PartnerClient({
      baseUrl: server.url,
      key: KEY,
      secret: SECRET,
      maxRetries: 0,
      rateLimit: new RedisRateLimiter({ redis: watched(redis.client()), ...limits }),
    });
    const page = { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } };
    // An answer's reset locates its window; a burst takes slots ahead; a write
    // goes through its endpoint's gate; a 429 pauses its route.
    server.on(
      'GET /api/v1.1/sims',
      ok([], { ...page, headers: { 'x-ratelimit-limit': '32', 'x-ratelimit-remaining': '31', 'x-ratelimit-reset': '2' } }),
    );
    server.on('POST /api/v1.1/sms', ok({ message: 'sent' }, { status: 201 }));
    server.on('GET /api/v1.1/users', fail(429, 'RATE_LIMITED', { headers: { 'retry-after': String(RETRY_AFTER_MS / 1000) } }));
    await client.sims.list();
    await Promise.all(Array.from({ length: 4 }, () => client.sims.list()));
    await client.sms.send({ fromNumber: '+15550100001', toNumber: '+15550100002', text: 'hi' });
    await client.users.list().catch(() => undefined);
    await client.close();
    // And a webhook event handled once, through the deduplicator.
    const dedupe = createDeduplicator({ store: new RedisDedupeStore({ redis: watched(redis.client()) }), leaseMs: LEASE_MS });
    const claim = await dedupe.claim({ type: 'voice.test.completed', id: `vqt_${randomUUID()}` } as WebhookEvent);
    await claim?.complete();
  });

  afterAll(async () => {
    await server?.close();
    await redis?.stop();
  });

  const { rows } = findTable(['key', 'holds', 'TTL']);
  const keyRows = rows.flatMap(([keys = '', holds = '', ttl = '']) =>
    codeSpans(keys).map((written, index) => ({ written, holds, ttl, index, match: pattern(written) })),
  );
  /** What the keys held where they existed (a script is given every key of a gate, and writes some). */
  const existing = () => seen.filter((one) => one.type !== 'none');

  it('names each key of a gate', () => {
    const gateKeys = keyRows.filter(({ written }) => !written.includes(':dedupe:')).map(({ written }) => /:(\w+)$/.exec(written)?.[1]);
    for (const name of GATE_KEYS.names) expect(gateKeys).toContain(name);
  });

  it('has a row for every key the fleet classes write, and every row is written', () => {
    const unmatched = [...new Set(existing().map((one) => one.key))].filter((key) => !keyRows.some(({ match }) => match.test(key)));
    expect(unmatched).toEqual([]);
    for (const { written, match } of keyRows) expect([written, existing().some((one) => match.test(one.key))]).toEqual([written, true]);
  });

  it('gives each key the type its row holds', () => {
    for (const one of existing()) {
      const candidates = keyRows.filter(({ match }) => match.test(one.key));
      const types = candidates.map(({ holds, index, written }) =>
        written.endsWith(':pause') || written.includes('dedupe') ? 'string' : holds.startsWith('the same per') ? undefined : typeOf(holds, index),
      );
      expect([one.key, types.includes(undefined) || types.includes(one.type)]).toEqual([one.key, true]);
    }
  });

  it('gives each key the time to live its row says', () => {
    for (const one of existing()) {
      const fits = keyRows.filter(({ match }) => match.test(one.key)).some(({ ttl }) => fitsTtl(ttl, one.ttlMs));
      expect([one.key, one.ttlMs, fits]).toEqual([one.key, one.ttlMs, true]);
    }
  });

  it('holds slots ahead no longer than the fleet guide says they may stay late', () => {
    const within = Number(
      /slots ahead marked late expire within (\d+) ms/.exec(
        findTable(['Redis is…', 'the limiter', 'the dedupe store'])
          .rows.map((row) => row[1])
          .join(' '),
      )?.[1],
    );
    const ahead = existing().filter((one) => one.key.endsWith(':ahead') && one.scoreAheadMs !== null);
    expect(ahead.length).toBeGreaterThan(0);
    for (const one of ahead) expect(one.scoreAheadMs).toBeLessThanOrEqual(within);
  });

  it('holds a claim as p: and its token while the event is handled, then done', () => {
    const [, holds = ''] = rows.find(([keys]) => keys?.includes('dedupe')) ?? [];
    expect(holds).toBe("`p:` and a claim's token while the event is handled, then `done`");
    const values = seen.filter((one) => one.key.includes(':dedupe:')).map((one) => one.value);
    expect(values[0]).toMatch(/^p:.+/);
    expect(values.at(-1)).toBe('done');
  });
});

describe("the fleet guide's table of what holds when Redis stumbles", () => {
  const { rows } = findTable(['Redis is…', 'the limiter', 'the dedupe store']);
  const row = (state: string): string[] => {
    const found = rows.find(([cell]) => cell?.startsWith(`**${state}**`));
    if (!found) throw new Error(`no row for Redis ${state}`);
    return found;
  };
  let stumbling: RedisServer;
  let target: TestServer;
  beforeAll(async () => {
    stumbling = await startRedis();
    target = await startTestServer();
    target.on('GET /api/v1.1/sims', ok([], { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } }));
  });
  afterAll(async () => {
    await target?.close();
    await stumbling?.stop();
  });

  const member = (onStoreError: 'fail-open' | 'fail-closed') =>
    new PartnerClient({
      baseUrl: target.url,
      key: KEY,
      secret: SECRET,
      maxRetries: 0,
      rateLimit: new RedisRateLimiter({
        redis: stumbling.client({ maxRetriesPerRequest: 1 }),
        onStoreError,
        commandTimeoutMs: 200,
        namespace: randomUUID(),
      }),
    });
  const signed = (id: string): { body: string; headers: Record<string, string> } => {
    const body = JSON.stringify({ id, event: 'voice.test.completed' });
    return { body, headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(body, secret) } };
  };
  async function receiver(onEvent: () => void): Promise<Loopback> {
    const dedupe = createDeduplicator({
      store: new RedisDedupeStore({ redis: stumbling.client({ maxRetriesPerRequest: 1 }), commandTimeoutMs: 200 }),
    });
    return listen(createNodeHandler({ secret, dedupe, onEvent, onError: () => undefined }));
  }

  it('names the options and policies the fleet classes take', () => {
    const text = rows.flat().join(' ');
    expect(text).toContain("`'fail-open'`");
    expect(text).toContain("`'fail-closed'`");
    for (const policy of ['fail-open', 'fail-closed'] as const) expect(() => member(policy)).not.toThrow();
    expect(() => new RedisDedupeStore({ redis: stumbling.client(), commandTimeoutMs: 200 })).not.toThrow();
    expect(() => createDeduplicator({ leaseMs: 1000 })).not.toThrow();
  });

  it('away: fail-closed calls fail as the row says; fail-open calls go on, Redis asked again every second', async () => {
    const [, limiter = ''] = row('away');
    expect(limiter).toContain("`'fail-closed'`: calls fail with `ConnectionError`, `requestNotSent: true`.");
    expect(limiter).toContain('asks Redis again every second');
    expect(STORE_RETRY_AFTER_MS).toBe(1000);
    const closed = member('fail-closed');
    const open = member('fail-open');
    await stumbling.kill();
    try {
      await expect(closed.sims.list()).rejects.toMatchObject({ name: 'ConnectionError', requestNotSent: true });
      await expect(open.sims.list()).resolves.toBeDefined();
    } finally {
      await stumbling.start();
      await Promise.all([closed.destroy(), open.destroy()]);
    }
  });

  it('away: a claim that fails is answered 500 and onEvent is not called; a lease is leaseMs, 30 s by default', async () => {
    const [, , dedupe = ''] = row('away');
    expect(dedupe).toContain('A claim that fails is answered 500 and `onEvent` is not called.');
    let handled = 0;
    const open = await receiver(() => void (handled += 1));
    await stumbling.kill();
    try {
      const answer = await fetch(open.url, { method: 'POST', ...signed(`vqt_${randomUUID()}`) });
      expect([answer.status, handled]).toEqual([500, 0]);
    } finally {
      await stumbling.start();
      await open.close();
    }
    const leases: number[] = [];
    const recording = {
      setIfAbsent: async () => true,
      claim: async (_key: string, _token: string, leaseMs: number) => (leases.push(leaseMs), 'claimed' as const),
      markDone: async () => undefined,
    };
    await createDeduplicator({ store: recording }).claim({ type: 'voice.test.completed', id: 'vqt_1' } as WebhookEvent);
    expect(`(\`leaseMs\`, ${leases[0]! / 1000} s)`).toBe(/\(`leaseMs`, \d+ s\)/.exec(dedupe)?.[0]);
  });

  it('lost: scripts are loaded again, and an event whose done record was lost is handled again', async () => {
    const [, limiter = '', dedupe = ''] = row('lost');
    expect(limiter).toMatch(/^Scripts are loaded again \(`NOSCRIPT`\)/);
    expect(dedupe).toMatch(/^Done records are lost: a redelivery of an event already handled is handled again/);
    const client = member('fail-closed');
    const admin = stumbling.client();
    let handled = 0;
    const open = await receiver(() => void (handled += 1));
    try {
      await client.sims.list();
      const delivery = signed(`vqt_${randomUUID()}`);
      expect((await fetch(open.url, { method: 'POST', ...delivery })).status).toBe(200);
      await admin.script('FLUSH');
      await admin.flushall();
      await expect(client.sims.list()).resolves.toBeDefined();
      expect((await fetch(open.url, { method: 'POST', ...delivery })).status).toBe(200);
      expect(handled).toBe(2);
    } finally {
      await open.close();
      await client.destroy();
    }
  });
});
