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
    const claim = await dedupe.claim(first);
    expect(claim?.key).toBe('voice.test.completed:vqt_1');
    await claim?.complete();
    expect(await dedupe.claim(event({ id: 'vqt_1', event: 'voice.test.completed' }))).toBeUndefined();
    expect(await dedupe.claim(event({ id: 'vqt_2', event: 'voice.test.completed' }))).toBeDefined();
    vi.advanceTimersByTime(59_999);
    expect(await dedupe.claim(first)).toBeUndefined();
    vi.advanceTimersByTime(2);
    expect(await dedupe.claim(first)).toBeDefined();
  });

  it('refuses a repeat while a claim is not completed, and frees the event when the lease ends', async () => {
    const dedupe = createDeduplicator({ leaseMs: 5_000 });
    const e = event({ id: 'vqt_3', event: 'voice.test.completed' });
    expect(await dedupe.claim(e)).toBeDefined();
    await expect(dedupe.claim(e)).rejects.toBeInstanceOf(EventInProgressError);
    await expect(dedupe.claim(e)).rejects.toThrow(
      expect.objectContaining({
        name: 'EventInProgressError',
        message: 'event voice.test.completed:vqt_3 is being handled by another delivery; deliver it again later',
      }),
    );
    // Neither completed nor released (a crash, a store that failed): the claim lasts its lease.
    vi.advanceTimersByTime(5_001);
    expect(await dedupe.claim(e)).toBeDefined();
  });

  it('holds a claim for its lease and not a millisecond longer', async () => {
    const dedupe = createDeduplicator({ leaseMs: 5_000 });
    const e = event({ id: 'vqt_edge', event: 'voice.test.completed' });
    expect(await dedupe.claim(e)).toBeDefined();
    vi.advanceTimersByTime(4_999);
    await expect(dedupe.claim(e)).rejects.toBeInstanceOf(EventInProgressError);
    vi.advanceTimersByTime(1);
    expect(await dedupe.claim(e)).toBeDefined();
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
      expect((error as ConfigurationError).code).toBe('CONFIGURATION_ERROR');
      expect((error as ConfigurationError).option).toBe(option);
      expect((error as ConfigurationError).message).toMatch(new RegExp(`option ${option}: must be a whole number`));
    }
    // The least of each is 1 ms.
    expect(() => createDeduplicator({ leaseMs: 1, ttlMs: 1 })).not.toThrow();
  });

  it('never deduplicates operator events unless given a key', async () => {
    const plain = createDeduplicator();
    const sms = { event: 'sms.received', from: '+15550001', text: 'hi', receivedAt: '2025-06-01T00:00:00.000Z' };
    const unkeyed = await plain.claim(event(sms));
    expect(unkeyed?.key).toBeUndefined();
    await unkeyed?.complete();
    expect(await plain.claim(event(sms))).toBeDefined();

    const keyed = createDeduplicator({
      key: (e) => (e.type === 'sms' ? `${String(e.data['from'])}|${String(e.data['receivedAt'])}` : undefined),
    });
    await (await keyed.claim(event(sms)))?.complete();
    expect(await keyed.claim(event(sms))).toBeUndefined();
    expect(await keyed.claim(event({ ...sms, receivedAt: '2025-06-01T00:00:01.000Z' }))).toBeDefined();
  });

  it('releases a claim so a retry after a failed handler is processed', async () => {
    const dedupe = createDeduplicator();
    const e = event({ id: 'vqt_9', event: 'voice.test.completed' });
    await (await dedupe.claim(e))?.release();
    expect(await dedupe.claim(e)).toBeDefined();
  });

  it('settles a claim once: a release after complete leaves the event done', async () => {
    const dedupe = createDeduplicator();
    const e = event({ id: 'vqt_once', event: 'voice.test.completed' });
    const claim = await dedupe.claim(e);
    await claim?.complete();
    await claim?.release();
    expect(await dedupe.claim(e)).toBeUndefined();
  });

  it('settles a claim once: later complete() and release() calls of it reach the store no more', async () => {
    const memory = new MemoryDedupeStore();
    const calls: string[] = [];
    const store: DedupeStore = {
      setIfAbsent: (key, ttlMs) => memory.setIfAbsent(key, ttlMs),
      claim: (key, claimToken, leaseMs) => memory.claim(key, claimToken, leaseMs),
      markDone: async () => void calls.push('markDone'),
      delete: async () => void calls.push('delete'),
    };
    const dedupe = createDeduplicator({ store });
    const claim = await dedupe.claim(event({ id: 'vqt_once_store', event: 'voice.test.completed' }));
    await claim?.complete();
    await claim?.complete();
    await claim?.release();
    expect(calls).toEqual(['markDone']);
  });

  describe('a store without the optional methods', () => {
    const e = event({ id: 'vqt_minimal', event: 'voice.test.completed' });

    it('of the older terms, without delete: a release has nothing to give back', async () => {
      const store: DedupeStore = { setIfAbsent: async () => true };
      const claim = await createDeduplicator({ store }).claim(e);
      await expect(claim?.release()).resolves.toBeUndefined();
    });

    it("with claim but neither markDone nor delete: complete() and release() resolve, and a failed claim rejects with the store's error", async () => {
      const store: DedupeStore = { setIfAbsent: async () => true, claim: async () => 'claimed' };
      const dedupe = createDeduplicator({ store });
      await expect((await dedupe.claim(e))?.complete()).resolves.toBeUndefined();
      await expect((await dedupe.claim(e))?.release()).resolves.toBeUndefined();
      const down = new Error('store down');
      const failing = createDeduplicator({ store: { setIfAbsent: async () => true, claim: async () => Promise.reject(down) } });
      await expect(failing.claim(e)).rejects.toBe(down);
    });
  });

  it("rejects with the store's own error when its claim fails, and gives that claim back", async () => {
    const down = new Error('store down');
    const deleted: Array<[string, string | undefined]> = [];
    const store: DedupeStore = {
      setIfAbsent: async () => true,
      claim: async () => Promise.reject(down),
      delete: async (key, claimToken) => void deleted.push([key, claimToken]),
    };
    await expect(createDeduplicator({ store }).claim(event({ id: 'vqt_down', event: 'voice.test.completed' }))).rejects.toBe(down);
    await vi.waitFor(() => expect(deleted).toHaveLength(1));
    expect(deleted[0]?.[0]).toBe('voice.test.completed:vqt_down');
    expect(deleted[0]?.[1]).toMatch(/^[0-9a-f-]{36}$/);
  });

  describe('a late release gives back only its own claim', () => {
    // Delivery A outlives its lease; B, a redelivery, claims the event and fails after A succeeded.
    const e = event({ id: 'vqt_late', event: 'voice.test.completed' });

    it('when both deliveries reach one receiver', async () => {
      const dedupe = createDeduplicator({ leaseMs: 300 });
      const a = await dedupe.claim(e);
      vi.advanceTimersByTime(700);
      const b = await dedupe.claim(e);
      expect(b).toBeDefined();
      vi.advanceTimersByTime(500);
      await a?.complete();
      vi.advanceTimersByTime(1_000);
      await b?.release();
      // Handled by A: a third copy is a duplicate, not handled a third time.
      expect(await dedupe.claim(e)).toBeUndefined();
    });

    it('when they reach two receivers sharing a store, the later one busy with other events', async () => {
      const store = new MemoryDedupeStore();
      const first = createDeduplicator({ store, leaseMs: 300 });
      const second = createDeduplicator({ store, leaseMs: 300 });
      const a = await first.claim(e);
      vi.advanceTimersByTime(700);
      const b = await second.claim(e);
      vi.advanceTimersByTime(500);
      await a?.complete();
      // Past B's lease the second receiver claims other events; B's claim is still B's own.
      for (let i = 0; i < 3; i++) await (await second.claim(event({ id: `vqt_other_${i}`, event: 'voice.test.completed' })))?.complete();
      vi.advanceTimersByTime(1_000);
      await b?.release();
      expect(await first.claim(e)).toBeUndefined();
      expect(await second.claim(e)).toBeUndefined();
    });

    it('and a release after the lease, nobody else claiming, frees the event', async () => {
      const dedupe = createDeduplicator({ leaseMs: 300 });
      const a = await dedupe.claim(e);
      vi.advanceTimersByTime(1_000);
      await dedupe.claim(event({ id: 'vqt_other', event: 'voice.test.completed' }));
      await a?.release();
      expect(await dedupe.claim(e)).toBeDefined();
    });
  });

  it("asks a store to mark done or delete only with the claimant's token", async () => {
    const memory = new MemoryDedupeStore();
    const calls: Array<[string, string | undefined]> = [];
    const store: DedupeStore = {
      setIfAbsent: (key, ttlMs) => memory.setIfAbsent(key, ttlMs),
      claim: (key, claimToken, leaseMs) => memory.claim(key, claimToken, leaseMs),
      async markDone(key, ttlMs, claimToken) {
        calls.push(['markDone', claimToken]);
        await memory.markDone(key, ttlMs);
      },
      async delete(key, claimToken) {
        calls.push(['delete', claimToken]);
        await memory.delete(key, claimToken);
      },
    };
    const dedupe = createDeduplicator({ store, leaseMs: 300 });
    const e = event({ id: 'vqt_tokens', event: 'voice.test.completed' });
    const a = await dedupe.claim(e);
    vi.advanceTimersByTime(400);
    const b = await dedupe.claim(e);
    await b?.release();
    await a?.complete();
    expect(calls).toHaveLength(2);
    for (const [, token] of calls) expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[0]?.[1]).not.toBe(calls[1]?.[1]);
  });

  it.each([
    ['null', null, 'null'],
    ['a typo', 'claimd', "'claimd'"],
    ['a long string', `claimed${'x'.repeat(60)}`, `'claimed${'x'.repeat(33)}'`],
    ['true', true, 'boolean'],
    ['nothing', undefined, 'undefined'],
  ])('fails a claim a store answers with %s, and gives that claim back', async (_, answer, shown) => {
    const deleted: Array<string | undefined> = [];
    const store: DedupeStore = {
      setIfAbsent: async () => true,
      claim: async () => answer as never,
      delete: async (_key, claimToken) => void deleted.push(claimToken),
    };
    const claim = createDeduplicator({ store }).claim(event({ id: 'vqt_bad', event: 'voice.test.completed' }));
    await expect(claim).rejects.toThrow(TypeError);
    await expect(claim).rejects.toThrow(`DedupeStore.claim() answered ${shown}; expected 'claimed', 'processing' or 'done'`);
    await vi.waitFor(() => expect(deleted).toHaveLength(1));
    expect(deleted[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['a string', 'OK', "'OK'"],
    ['null', null, 'null'],
    ['a number', 1, 'number'],
  ])('fails a claim when a store of the older terms answers setIfAbsent with %s', async (_, answer, shown) => {
    const store: DedupeStore = { setIfAbsent: async () => answer as never };
    await expect(createDeduplicator({ store }).claim(event({ id: 'vqt_old', event: 'voice.test.completed' }))).rejects.toThrow(
      `DedupeStore.setIfAbsent() answered ${shown}; expected true or false`,
    );
  });

  it('talks to a pluggable store with scoped keys and the TTL (the Redis SET NX PX shape)', async () => {
    const calls: Array<[string, number]> = [];
    const deleted: string[] = [];
    const seen = new Set<string>();
    const store: DedupeStore = {
      async setIfAbsent(key, ttlMs) {
        calls.push([key, ttlMs]);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      },
      async delete(key) {
        deleted.push(key);
        seen.delete(key);
      },
    };
    const dedupe = createDeduplicator({ store, ttlMs: 5_000 });
    const e = event({ id: 'vqt_7', event: 'voice.test.completed' });
    const claim = await dedupe.claim(e);
    expect(await dedupe.claim(e)).toBeUndefined();
    expect(calls).toEqual([
      ['voice.test.completed:vqt_7', 5_000],
      ['voice.test.completed:vqt_7', 5_000],
    ]);
    await claim?.release();
    expect(deleted).toEqual(['voice.test.completed:vqt_7']);
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

  it('drops an expired key before the oldest live one, a key expiring this very millisecond included', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 3 });
    await store.setIfAbsent('a', 1_000);
    await store.setIfAbsent('short', 20);
    await store.setIfAbsent('b', 1_000);
    vi.advanceTimersByTime(20);
    await store.setIfAbsent('c', 1_000);
    expect(store.size).toBe(3);
    expect(await store.setIfAbsent('a', 1_000)).toBe(false);
  });

  it('sweeps for expired keys on the first insertion into a full store, then once per maxEntries / 2 insertions', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 4 });
    for (const key of ['k1', 'k2', 'k3', 'k4']) await store.setIfAbsent(key, 1_000);
    // Full: the first insertion sweeps (nothing has expired), then drops the oldest, k1.
    await store.setIfAbsent('short', 10);
    // No sweep: k2 goes.
    await store.setIfAbsent('e2', 1_000);
    vi.advanceTimersByTime(10);
    // The second after the sweep sweeps again: the expired key goes, k3 stays.
    await store.setIfAbsent('e3', 1_000);
    expect(store.size).toBe(4);
    expect(await store.setIfAbsent('k3', 1_000)).toBe(false);
    expect(await store.setIfAbsent('k2', 1_000)).toBe(true);
  });

  it('keeps an expired key, counted in size, until the store needs its room', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 10 });
    await store.setIfAbsent('a', 10);
    vi.advanceTimersByTime(20);
    await store.setIfAbsent('b', 1_000);
    expect(store.size).toBe(2);
  });

  it('counts a key recorded as done as the newest: older claims are dropped before it', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 3 });
    await store.claim('a', 'token-a', 1_000);
    await store.claim('b', 'token-b', 1_000);
    await store.markDone('a', 60_000);
    await store.setIfAbsent('c', 1_000);
    await store.setIfAbsent('d', 1_000);
    expect(await store.claim('a', 'token-a2', 1_000)).toBe('done');
    expect(await store.claim('b', 'token-b2', 1_000)).toBe('claimed');
  });

  it('deletes a key whatever claim holds it when given no token, and only its own claim when given one', async () => {
    const store = new MemoryDedupeStore();
    await store.claim('k', 'token', 1_000);
    await store.delete('k', 'another');
    expect(await store.claim('k', 'late', 1_000)).toBe('processing');
    await store.delete('k');
    expect(await store.claim('k', 'next', 1_000)).toBe('claimed');
    await expect(store.delete('absent', 'token')).resolves.toBeUndefined();
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

  /** A Node adapter on 127.0.0.1 around `dedupe`; its URL. */
  async function receiver(
    dedupe: ReturnType<typeof createDeduplicator>,
    onEvent: () => unknown,
    onError: (error: unknown) => void = () => {},
  ): Promise<string> {
    const handler = createNodeHandler({ secret: deliverySecret, dedupe, onError, onEvent });
    const server = createServer((request, response) => void handler(request, response));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  it.each([
    ['one receiver', false],
    ['two receivers sharing the store', true],
  ])('never let a redelivery that fails after its lease-expired twin succeeded undo the done record (%s)', async (_, twoReceivers) => {
    const store = new MemoryDedupeStore();
    const dedupe = createDeduplicator({ store, leaseMs: 300 });
    const outcomes: Array<() => void> = [];
    let handled = 0;
    const onEvent = async (): Promise<void> => {
      handled += 1;
      const call = handled;
      if (call > 3) return;
      await new Promise<void>((resolve) => outcomes.push(resolve));
      if (call === 2) throw new Error('the redelivery fails');
    };
    const urlA = await receiver(dedupe, onEvent);
    const urlB = twoReceivers ? await receiver(createDeduplicator({ store, leaseMs: 300 }), onEvent) : urlA;
    const body = JSON.stringify({ id: 'vqt_lease', event: 'voice.test.completed' });
    const a = postSigned(urlA, body);
    await vi.waitFor(() => expect(handled).toBe(1));
    // A outlives its lease; the redelivery B claims the event and runs the handler too.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const b = postSigned(urlB, body);
    await vi.waitFor(() => expect(handled).toBe(2));
    outcomes[0]?.();
    expect(await a).toEqual({ status: 200, body: { received: true } });
    // The receiver of B goes on with other events past B's lease.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const other = postSigned(urlB, JSON.stringify({ id: 'vqt_busy', event: 'voice.test.completed' }));
    await vi.waitFor(() => expect(handled).toBe(3));
    outcomes[2]?.();
    expect((await other).status).toBe(200);
    outcomes[1]?.();
    expect((await b).status).toBe(500);
    // Handled once already: the next copy is answered as a duplicate, onEvent not run again.
    expect(await postSigned(urlA, body)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(handled).toBe(3);
  });

  it('refuses a delivery 500 when a deduplicator of its own answers outside the contract, without calling onEvent', async () => {
    for (const answer of [true, false, null, 'claimed']) {
      const errors: unknown[] = [];
      let handled = 0;
      const url = await receiver(
        { claim: async () => answer as never },
        () => void (handled += 1),
        (error) => errors.push(error),
      );
      expect(await postSigned(url, JSON.stringify({ id: 'vqt_own', event: 'voice.test.completed' }))).toEqual({
        status: 500,
        body: { error: 'handler_failed' },
      });
      expect(handled).toBe(0);
      expect(errors[0]).toMatchObject({ name: 'WebhookHandlerError', stage: 'claim' });
      expect(String((errors[0] as Error).cause)).toMatch(
        /TypeError: dedupe\.claim\(\) resolved .*; expected an EventClaim to handle, or undefined for a repeat/,
      );
    }
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
