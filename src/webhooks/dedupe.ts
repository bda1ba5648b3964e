import { DEFAULT_DEDUPE_TTL_MS } from '../core/defaults.js';
import type { WebhookEvent } from './event-types.js';

/**
 * Where seen keys live. Back it with anything shared by all receiver instances; with Redis:
 *
 * ```ts
 * const store: DedupeStore = {
 *   async setIfAbsent(key, ttlMs) { return (await redis.set(key, '1', { NX: true, PX: ttlMs })) === 'OK'; },
 *   async delete(key) { await redis.del(key); },
 * };
 * ```
 */
export interface DedupeStore {
  /** Records `key` for `ttlMs`; true when it was not there yet (this caller owns the event). */
  setIfAbsent(key: string, ttlMs: number): Promise<boolean>;
  /** Forgets `key`, so a retry of an event whose handling failed is processed again. */
  delete?(key: string): Promise<void>;
}

/** Options of {@link MemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /** Most keys kept; the oldest go first when full. Default 10,000. */
  maxEntries?: number;
}

/**
 * A process-local store. Expiry is lazy (checked on access and when the store is full), so it
 * starts no timer and never keeps the process alive; `maxEntries` bounds its memory.
 */
export class MemoryDedupeStore implements DedupeStore {
  readonly #expiresAt = new Map<string, number>();
  readonly #maxEntries: number;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
  }

  /** Keys held now, expired ones not yet dropped included. */
  get size(): number {
    return this.#expiresAt.size;
  }

  async setIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const expiresAt = this.#expiresAt.get(key);
    if (expiresAt !== undefined && expiresAt > now) return false;
    // Re-inserting moves the key to the end, so Map order stays oldest-first.
    this.#expiresAt.delete(key);
    if (this.#expiresAt.size >= this.#maxEntries) this.#evict(now);
    this.#expiresAt.set(key, now + ttlMs);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.#expiresAt.delete(key);
  }

  #evict(now: number): void {
    for (const [key, expiresAt] of this.#expiresAt) {
      if (expiresAt <= now) this.#expiresAt.delete(key);
    }
    // Still full of live keys: drop the oldest, the likeliest to be past any retry window.
    while (this.#expiresAt.size >= this.#maxEntries) {
      const oldest = this.#expiresAt.keys().next();
      if (oldest.done) break;
      this.#expiresAt.delete(oldest.value);
    }
  }
}

/** Options of {@link createDeduplicator}. */
export interface DedupeOptions {
  /** Where seen keys live; default a {@link MemoryDedupeStore} (one process). For a fleet, `RedisDedupeStore`. */
  store?: DedupeStore;
  /** How long a key is remembered. Default 24 hours, well past the longest retry schedule (spec part 8). */
  ttlMs?: number;
  /**
   * The key of an event, or undefined to never deduplicate it. Operator SMS and voice events
   * carry no id (spec part 6), so pick naturally unique payload fields here. Default:
   * `id` for voice.test.completed, nothing for other events.
   */
  key?: (event: WebhookEvent) => string | undefined;
}

/**
 * Turns at-least-once deliveries into once-only processing per key. Give it to an adapter as
 * `dedupe`, or call `claim()` before and `release()` after a failed handling yourself.
 */
export interface Deduplicator {
  /** True the first time an event's key is seen (process it); false for a repeat delivery. */
  claim(event: WebhookEvent): Promise<boolean>;
  /** Forgets an event whose handling failed, so its retry is processed. */
  release(event: WebhookEvent): Promise<void>;
}

export { DEFAULT_DEDUPE_TTL_MS };

/**
 * The key {@link createDeduplicator} uses by default: a `voice.test.completed` event's `id`;
 * undefined (never deduplicated) for other events, which carry no id.
 */
export function defaultDedupeKey(event: WebhookEvent): string | undefined {
  return event.type === 'voice.test.completed' ? event.id : undefined;
}

/**
 * At-least-once delivery made once-only per key (spec part 6: voice.test.completed rule 2,
 * operator rule 3). Give it to an adapter as `dedupe`: a repeat is answered 200 without calling
 * `onEvent`, and a failed `onEvent` releases its key so the retry is handled.
 *
 * @example
 * ```ts
 * import { createDeduplicator, createNodeHandler } from 'mobile-partner-sdk/webhooks';
 *
 * const dedupe = createDeduplicator({
 *   // SMS events carry no id: key them on fields that are unique together.
 *   key: (event) => (event.type === 'sms' ? `${event.data.messageId}` : event.type === 'voice.test.completed' ? event.id : undefined),
 * });
 * const handler = createNodeHandler({ secret: process.env.WEBHOOK_SIGNING_SECRET ?? '', dedupe, onEvent: (event) => console.log(event.type) });
 * ```
 */
export function createDeduplicator(options: DedupeOptions = {}): Deduplicator {
  const store = options.store ?? new MemoryDedupeStore();
  const ttlMs = options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const keyOf = options.key ?? defaultDedupeKey;
  // Scoped by type so an SMS key can never collide with a voice quality id.
  const scoped = (event: WebhookEvent): string | undefined => {
    const key = keyOf(event);
    return key === undefined ? undefined : `${event.type}:${key}`;
  };
  return {
    async claim(event) {
      const key = scoped(event);
      return key === undefined ? true : store.setIfAbsent(key, ttlMs);
    },
    async release(event) {
      const key = scoped(event);
      if (key !== undefined && store.delete) await store.delete(key);
    },
  };
}
