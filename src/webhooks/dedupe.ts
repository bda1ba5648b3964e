import { DEFAULT_DEDUPE_TTL_MS } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { OptionNames } from '../shared/option-names.js';
import type { WebhookEvent } from './event-types.js';

/**
 * What a claim found: the key was free and is now this caller's (`'claimed'`), another receiver
 * holds it and has not finished (`'processing'`), or the event is recorded as handled (`'done'`).
 */
export type DedupeClaim = 'claimed' | 'processing' | 'done';

/**
 * Where seen keys live. Back it with anything shared by all receiver instances
 * (`RedisDedupeStore` of `mobile-partner-sdk/redis` for Redis).
 *
 * The deduplicator claims an event for a short lease and records it as done, for the long TTL,
 * once its handler succeeded; a handling that failed gives its claim back. A store with
 * `claim` and `markDone` gets that protocol; one with only `setIfAbsent` (and `delete`) records
 * an event for the whole TTL when it is claimed, so a failed handling whose `delete` fails leaves
 * it looking handled until the TTL ends.
 */
export interface DedupeStore {
  /** Records `key` for `ttlMs`; true when it was not there yet (this caller owns the event). */
  setIfAbsent(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Forgets `key`, so a retry of an event whose handling failed is processed again. With
   * `claimToken`, only while `key` still holds that claim: another receiver's claim and a done
   * record stay.
   */
  delete?(key: string, claimToken?: string): Promise<void>;
  /** Claims `key` with `claimToken` for `leaseMs` unless it is held or done, and says which. */
  claim?(key: string, claimToken: string, leaseMs: number): Promise<DedupeClaim>;
  /** Records `key` as handled for `ttlMs`, in place of its claim. */
  markDone?(key: string, ttlMs: number): Promise<void>;
}

/** Options of {@link MemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /** Most keys kept; the oldest go first when full. Default 10,000. */
  maxEntries?: number;
}

const MEMORY_STORE_OPTION_NAMES = { maxEntries: true } as const satisfies OptionNames<MemoryDedupeStoreOptions>;

interface MemoryEntry {
  expiresAt: number;
  /** The claim's token while the event is being handled; undefined once done. */
  claimToken: string | undefined;
}

/**
 * A process-local store. Expiry is lazy (checked on access and when the store is full), so it
 * starts no timer and never keeps the process alive; `maxEntries` bounds its memory.
 *
 * @throws `ConfigurationError` (of `mobile-partner-sdk`) for an unknown option.
 */
export class MemoryDedupeStore implements DedupeStore {
  readonly #entries = new Map<string, MemoryEntry>();
  readonly #maxEntries: number;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    refuseUnknownOptions(options, MEMORY_STORE_OPTION_NAMES, 'MemoryDedupeStore');
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
  }

  /** Keys held now, expired ones not yet dropped included. */
  get size(): number {
    return this.#entries.size;
  }

  async setIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    return (await this.claim(key, undefined, ttlMs)) === 'claimed';
  }

  async claim(key: string, claimToken: string | undefined, leaseMs: number): Promise<DedupeClaim> {
    const now = Date.now();
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.expiresAt > now) return entry.claimToken === undefined ? 'done' : 'processing';
    this.#set(key, { expiresAt: now + leaseMs, claimToken }, now);
    return 'claimed';
  }

  async markDone(key: string, ttlMs: number): Promise<void> {
    const now = Date.now();
    this.#set(key, { expiresAt: now + ttlMs, claimToken: undefined }, now);
  }

  async delete(key: string, claimToken?: string): Promise<void> {
    if (claimToken !== undefined && this.#entries.get(key)?.claimToken !== claimToken) return;
    this.#entries.delete(key);
  }

  #set(key: string, entry: MemoryEntry, now: number): void {
    // Re-inserting moves the key to the end, so Map order stays oldest-first.
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) this.#evict(now);
    this.#entries.set(key, entry);
  }

  #evict(now: number): void {
    for (const [key, { expiresAt }] of this.#entries) {
      if (expiresAt <= now) this.#entries.delete(key);
    }
    // Still full of live keys: drop the oldest, the likeliest to be past any retry window.
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }
}

/**
 * A delivery of an event another receiver (or an earlier delivery to this one) is still
 * handling: answered 409 by the adapters, so the sender delivers it again later, by when it is
 * either done (answered as a duplicate) or its claim was given back or ran out (handled then).
 */
export class EventInProgressError extends Error {
  override readonly name = 'EventInProgressError';
}

/** Options of {@link createDeduplicator}. */
export interface DedupeOptions {
  /** Where seen keys live; default a {@link MemoryDedupeStore} (one process). For a fleet, `RedisDedupeStore`. */
  store?: DedupeStore;
  /** How long a handled event is remembered. Default 24 hours, well past the longest retry schedule (spec part 8). */
  ttlMs?: number;
  /**
   * How long a claim lasts before its handler has succeeded. A receiver that crashed, or a
   * failed handling whose claim could not be given back (the store failing too), holds the
   * event no longer than this: a redelivery after it runs the handler. Longer than the slowest
   * handler, shorter than the sender's spacing of retries. Default 30 s.
   */
  leaseMs?: number;
  /**
   * The key of an event, or undefined to never deduplicate it. Operator SMS and voice events
   * carry no id (spec part 6), so pick naturally unique payload fields here. Default:
   * `id` for voice.test.completed, nothing for other events.
   */
  key?: (event: WebhookEvent) => string | undefined;
}

/**
 * Turns at-least-once deliveries into once-only processing per key. Give it to an adapter as
 * `dedupe`, or call `claim()` before, `complete()` after a successful and `release()` after a
 * failed handling yourself. `claim()` rejects with {@link EventInProgressError} while the event
 * is claimed and not done, and with the store's error when the store fails: answer non-2xx then.
 */
export interface Deduplicator {
  /** True the first time an event's key is seen (process it); false for a repeat delivery. */
  claim(event: WebhookEvent): Promise<boolean>;
  /** Forgets an event whose handling failed, so its retry is processed. */
  release(event: WebhookEvent): Promise<void>;
  /** Records an event as handled, after its handler succeeded: repeats are answered as duplicates from then on. */
  complete?(event: WebhookEvent): Promise<void>;
}

const DEDUPE_OPTION_NAMES = { store: true, ttlMs: true, leaseMs: true, key: true } as const satisfies OptionNames<DedupeOptions>;

/** `leaseMs` of the deduplicator: past the sender's patience with a handler (10 s, spec part 8), within its first retry's delay (30 s). */
const DEFAULT_DEDUPE_LEASE_MS = 30_000;

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
 * @throws `ConfigurationError` (of `mobile-partner-sdk`) for an unknown option, or when `ttlMs` or `leaseMs` is not a whole number of milliseconds, at least 1.
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
  refuseUnknownOptions(options, DEDUPE_OPTION_NAMES, 'createDeduplicator');
  const store = options.store ?? new MemoryDedupeStore();
  const ttlMs = checkMs(options.ttlMs, 'ttlMs') ?? DEFAULT_DEDUPE_TTL_MS;
  const leaseMs = checkMs(options.leaseMs, 'leaseMs') ?? DEFAULT_DEDUPE_LEASE_MS;
  const keyOf = options.key ?? defaultDedupeKey;
  // Scoped by type so an SMS key can never collide with a voice quality id.
  const scoped = (event: WebhookEvent): string | undefined => {
    const key = keyOf(event);
    return key === undefined ? undefined : `${event.type}:${key}`;
  };
  /** This process's claims not yet completed or released, oldest first: the token a release gives back. */
  const claims = new Map<string, { claimToken: string; until: number }>();
  const forgetExpired = (now: number): void => {
    for (const [key, { until }] of claims) {
      if (until > now) break;
      claims.delete(key);
    }
  };
  return {
    async claim(event) {
      const key = scoped(event);
      if (key === undefined) return true;
      if (!store.claim) return store.setIfAbsent(key, ttlMs);
      const claimToken = globalThis.crypto.randomUUID();
      let found: DedupeClaim;
      try {
        found = await store.claim(key, claimToken, leaseMs);
      } catch (error) {
        // The store may record the claim after all (a command it runs after we stopped waiting):
        // this gives it back as soon as the store answers, rather than after the lease.
        store.delete?.(key, claimToken).catch(() => undefined);
        throw error;
      }
      switch (found) {
        case 'claimed': {
          const now = Date.now();
          forgetExpired(now);
          claims.delete(key);
          claims.set(key, { claimToken, until: now + leaseMs });
          return true;
        }
        case 'done':
          return false;
        case 'processing':
          throw new EventInProgressError(`event ${key} is being handled by another delivery; deliver it again later`);
        default:
          return found satisfies never;
      }
    },
    async complete(event) {
      const key = scoped(event);
      if (key === undefined || !store.markDone) return;
      await store.markDone(key, ttlMs);
      claims.delete(key);
    },
    async release(event) {
      const key = scoped(event);
      if (key === undefined) return;
      const claimToken = claims.get(key)?.claimToken;
      claims.delete(key);
      if (store.delete) await store.delete(key, claimToken);
    },
  };
}

/** A duration option of {@link createDeduplicator}: whole milliseconds, at least 1, or unset. */
function checkMs(value: unknown, option: 'ttlMs' | 'leaseMs'): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(
      `invalid createDeduplicator option ${option}: must be a whole number of milliseconds, at least 1`,
      'CONFIGURATION_ERROR',
      option,
    );
  }
  return value;
}
