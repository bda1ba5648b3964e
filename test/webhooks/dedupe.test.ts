import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import {
  constructEvent,
  createDeduplicator,
  createNodeHandler,
  EventInProgressError,
  MemoryDedupeStore,
  signPayload,
  type DedupeStore,
  type WebhookEvent,
} from '../../src/webhooks/index.js';
import { ConfigurationError } from '../../src/index.js';
import { postSigned, secret as deliverySecret } from './helpers.js';

const secret = 'whsec_dedupe';

function event(payload: Record<string, unknown>): WebhookEvent {
  const body = JSON.stringify(payload);
  return constructEvent(body, { 'x-service-signature': signPayload(body, secret) }, secret);
}

describe('createDeduplicator', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2025-06-01T00:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('claims a voice.test.completed id once, and again after the TTL once completed', async () => {
    const dedupe = createDeduplicator({ ttlMs: 60_000 });
    const first = event({ id: 'vqt_1', event: 'voice.test.completed' });
    expect(await dedupe.claim(first)).toBe(true);
    await dedupe.complete?.(first);
    expect(await dedupe.claim(event({ id: 'vqt_1', event: 'voice.test.completed' }))).toBe(false);
    expect(await dedupe.claim(event({ id: 'vqt_2', event: 'voice.test.completed' }))).toBe(true);
    vi.advanceTimersByTime(59_999);
    expect(await dedupe.claim(first)).toBe(false);
    vi.advanceTimersByTime(2);
    expect(await dedupe.claim(first)).toBe(true);
  });

  it('refuses a repeat while a claim is not completed, and frees the event when the lease ends', async () => {
    const dedupe = createDeduplicator({ leaseMs: 5_000 });
    const e = event({ id: 'vqt_3', event: 'voice.test.completed' });
    expect(await dedupe.claim(e)).toBe(true);
    await expect(dedupe.claim(e)).rejects.toBeInstanceOf(EventInProgressError);
    // Neither completed nor released (a crash, a store that failed): the claim lasts its lease.
    vi.advanceTimersByTime(5_001);
    expect(await dedupe.claim(e)).toBe(true);
  });

  it('refuses a lease or TTL that is not a whole number of milliseconds, naming the option', () => {
    for (const [option, value] of [
      ['leaseMs', 0],
      ['leaseMs', Number.NaN],
      ['ttlMs', -1],
      ['ttlMs', 1.5],
    ] as const) {
      const error = (() => {
        try {
          createDeduplicator({ [option]: value });
        } catch (failure) {
          return failure;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).option).toBe(option);
      expect((error as ConfigurationError).message).toMatch(new RegExp(`option ${option}: must be a whole number`));
    }
  });

  it('never deduplicates operator events unless given a key', async () => {
    const plain = createDeduplicator();
    const sms = { event: 'sms.received', from: '+15550001', text: 'hi', receivedAt: '2025-06-01T00:00:00.000Z' };
    expect(await plain.claim(event(sms))).toBe(true);
    expect(await plain.claim(event(sms))).toBe(true);

    const keyed = createDeduplicator({
      key: (e) => (e.type === 'sms' ? `${String(e.data['from'])}|${String(e.data['receivedAt'])}` : undefined),
    });
    expect(await keyed.claim(event(sms))).toBe(true);
    await keyed.complete?.(event(sms));
    expect(await keyed.claim(event(sms))).toBe(false);
    expect(await keyed.claim(event({ ...sms, receivedAt: '2025-06-01T00:00:01.000Z' }))).toBe(true);
  });

  it('releases a key so a retry after a failed handler is processed', async () => {
    const dedupe = createDeduplicator();
    const e = event({ id: 'vqt_9', event: 'voice.test.completed' });
    expect(await dedupe.claim(e)).toBe(true);
    await dedupe.release(e);
    expect(await dedupe.claim(e)).toBe(true);
  });

  it('talks to a pluggable store with scoped keys and the TTL (the Redis SET NX PX shape)', async () => {
    const calls: Array<[string, number]> = [];
    const seen = new Set<string>();
    const store: DedupeStore = {
      async setIfAbsent(key, ttlMs) {
        calls.push([key, ttlMs]);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      },
    };
    const dedupe = createDeduplicator({ store, ttlMs: 5_000 });
    const e = event({ id: 'vqt_7', event: 'voice.test.completed' });
    await dedupe.claim(e);
    expect(await dedupe.claim(e)).toBe(false);
    expect(calls).toEqual([
      ['voice.test.completed:vqt_7', 5_000],
      ['voice.test.completed:vqt_7', 5_000],
    ]);
    await expect(dedupe.release(e)).resolves.toBeUndefined();
  });
});

describe('MemoryDedupeStore', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([Number.NaN, '100', 0, -1, 2.5, Infinity, null])('refuses a maxEntries of %o: it would never bound the store', (maxEntries) => {
    expect(() => new MemoryDedupeStore({ maxEntries: maxEntries as never })).toThrow(
      expect.objectContaining({
        name: 'ConfigurationError',
        option: 'maxEntries',
        message: expect.stringMatching(/^invalid MemoryDedupeStore option maxEntries: must be an integer from 1 to \d+ \(got .+\)$/),
      }),
    );
  });

  it('stays within maxEntries, dropping expired keys first, then the oldest', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 3 });
    await store.setIfAbsent('short', 10);
    await store.setIfAbsent('a', 1_000);
    await store.setIfAbsent('b', 1_000);
    vi.advanceTimersByTime(20);
    await store.setIfAbsent('c', 1_000);
    expect(store.size).toBe(3);
    expect(await store.setIfAbsent('a', 1_000)).toBe(false);
    await store.setIfAbsent('d', 1_000);
    expect(store.size).toBe(3);
    expect(await store.setIfAbsent('d', 1_000)).toBe(false);
    expect(await store.setIfAbsent('c', 1_000)).toBe(false);
    // 'a' was the oldest live key when 'd' needed room.
    expect(await store.setIfAbsent('a', 1_000)).toBe(true);
    for (let i = 0; i < 1_000; i++) await store.setIfAbsent(`k${i}`, 1_000);
    expect(store.size).toBe(3);
  });

  it('schedules no timer', async () => {
    const store = new MemoryDedupeStore();
    await store.setIfAbsent('x', 60_000);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the adapters with the in-memory store', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise((resolve) => {
            // A handler a failed test left pending must not hold the server open.
            server.closeAllConnections();
            server.close(resolve);
          }),
      ),
    );
  });

  it('answer a repeat 409 while the first delivery is handled, and handle it once the first failed', async () => {
    let fail = (): void => undefined;
    let handled = 0;
    const handler = createNodeHandler({
      secret: deliverySecret,
      dedupe: createDeduplicator(),
      onError: () => {},
      onEvent: async () => {
        handled += 1;
        if (handled === 1) {
          await new Promise<void>((resolve) => (fail = resolve));
          throw new Error('handler failed');
        }
      },
    });
    const server = createServer((request, response) => void handler(request, response));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const body = JSON.stringify({ id: 'vqt_mem', event: 'voice.test.completed' });
    const first = postSigned(url, body);
    try {
      await vi.waitFor(() => expect(handled).toBe(1));
      // Answered 200 duplicate here, the event would be lost when the first handling fails.
      expect(await postSigned(url, body)).toEqual({ status: 409, body: { error: 'in_progress' } });
    } finally {
      fail();
    }
    expect((await first).status).toBe(500);
    expect(await postSigned(url, body)).toEqual({ status: 200, body: { received: true } });
    expect(handled).toBe(2);
    expect((await postSigned(url, body)).body).toEqual({ received: true, duplicate: true });
  });
});
