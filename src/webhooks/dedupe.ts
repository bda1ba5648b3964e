import { DEFAULT_DEDUPE_TTL_MS } from '../core/defaults.js';
import { positiveIntegerProblem } from '../shared/integer-option.js';
import { checkOption } from './options.js';
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
  /**
   * Records `key` as handled for `ttlMs`. `claimToken` is the claim of the delivery that handled
   * it. The record replaces whatever the key holds, another delivery's claim included: the event
   * has been handled, and a claim given back later must find it done, not free.
   */
  markDone?(key: string, ttlMs: number, claimToken: string): Promise<void>;
}

/** Options of {@link MemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /** Most keys kept, a positive integer; the oldest go first when full. Default 10,000. */
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
  /** Insertions into a full store since its last sweep for expired keys; the first one sweeps. */
  #insertsSinceSweep = Number.POSITIVE_INFINITY;
  /** Walks the keys oldest first, for eviction. */
  #oldest: Iterator<string> = this.#entries.keys();

  /** @throws `ConfigurationError` when `maxEntries` is not a positive integer. */
  constructor(options: MemoryDedupeStoreOptions = {}) {
    refuseUnknownOptions(options, MEMORY_STORE_OPTION_NAMES, 'MemoryDedupeStore');
    // Compared with the store's size: NaN or a string would never be reached, and the store would grow without bound.
    checkOption('MemoryDedupeStore', 'maxEntries', options.maxEntries, positiveIntegerProblem);
    this.#maxEntries = options.maxEntries ?? 10_000;
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

  /**
   * Makes room for one key: expired keys go first, then the oldest. The sweep for expired keys
   * reads every entry, so it runs at most once per `maxEntries / 2` insertions into a full store
   * (a store full of live keys would otherwise read all of them on every insertion).
   */
  #evict(now: number): void {
    if (this.#insertsSinceSweep >= this.#maxEntries / 2) {
      this.#insertsSinceSweep = 0;
      for (const [key, { expiresAt }] of this.#entries) {
        if (expiresAt <= now) this.#entries.delete(key);
      }
    }
    this.#insertsSinceSweep += 1;
    // Still full: drop the oldest, the likeliest to be past any retry window. One iterator goes
    // on from key to key: a fresh one would step again over every slot deleted before it.
    while (this.#entries.size >= this.#maxEntries) {
      let oldest = this.#oldest.next();
      if (oldest.done) {
        this.#oldest = this.#entries.keys();
        oldest = this.#oldest.next();
        if (oldest.done) break;
      }
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
 * One delivery's hold on its event, given by {@link Deduplicator.claim}: after handling it, call
 * `complete()` (it succeeded) or `release()` (it failed), once. Each acts only on the claim this
 * delivery made, whatever other deliveries of the event did meanwhile; a second call does nothing.
 */
export interface EventClaim {
  /** The event's key in the store (`type:key`); undefined for an event that is never deduplicated. */
  readonly key: string | undefined;
  /** Records the event as handled: repeats are answered as duplicates from then on. */
  complete(): Promise<void>;
  /**
   * Gives this delivery's claim back, so a retry of the event is processed. A claim that ran out
   * and was taken by another delivery, or an event another delivery recorded as handled, stays.
   */
  release(): Promise<void>;
}

/**
 * Turns at-least-once deliveries into once-only processing per key. Give it to an adapter as
 * `dedupe`, or call `claim()` yourself: it resolves an {@link EventClaim} (handle the event, then
 * `complete()` or `release()` that claim) or undefined (a repeat of an event already handled), and
 * rejects with {@link EventInProgressError} while another delivery holds the event, or with the
 * store's error when the store fails or answers outside its contract: answer non-2xx then.
 */
export interface Deduplicator {
  /**
   * Claims `event` for this delivery: an {@link EventClaim} to `complete()` once handled or
   * `release()` on failure; undefined when the event was handled already (answer 2xx). Rejects
   * with {@link EventInProgressError} while another delivery holds it.
   */
  claim(event: WebhookEvent): Promise<EventClaim | undefined>;
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
  return {
    async claim(event) {
      const key = keyOf(event);
      // Scoped by type so an SMS key can never collide with a voice quality id.
      if (key === undefined) return unkeyedClaim;
      return claimKey(store, `${event.type}:${key}`, ttlMs, leaseMs);
    },
  };
}

/** The claim of an event never deduplicated: nothing to record or give back. */
const unkeyedClaim: EventClaim = Object.freeze({
  key: undefined,
  complete: async () => undefined,
  release: async () => undefined,
});

const STORE_CLAIMS: ReadonlySet<unknown> = new Set<DedupeClaim>(['claimed', 'processing', 'done']);

/**
 * Claims `key` in `store` for this delivery. The claim's token lives in the returned handle only,
 * so its `complete()` and `release()` can never act with another delivery's token, or none.
 */
async function claimKey(store: DedupeStore, key: string, ttlMs: number, leaseMs: number): Promise<EventClaim | undefined> {
  if (!store.claim) {
    // A store on the older terms records the event for the whole TTL when it is claimed.
    const first = await store.setIfAbsent(key, ttlMs);
    if (typeof first !== 'boolean') throw outsideContract('setIfAbsent', first, 'true or false');
    return first
      ? settledOnce(
          key,
          async () => undefined,
          async () => store.delete?.(key),
        )
      : undefined;
  }
  const claimToken = globalThis.crypto.randomUUID();
  // The store may have recorded the claim however it failed (a command it runs after we stopped
  // waiting, an answer it garbled): giving it back as soon as the store answers frees the event
  // then, rather than after the lease. Only this claim is deleted.
  const giveBack = (): void => void store.delete?.(key, claimToken).catch(() => undefined);
  let found: unknown;
  try {
    found = await store.claim(key, claimToken, leaseMs);
  } catch (error) {
    giveBack();
    throw error;
  }
  if (!STORE_CLAIMS.has(found)) {
    giveBack();
    throw outsideContract('claim', found, "'claimed', 'processing' or 'done'");
  }
  const claim = found as DedupeClaim;
  switch (claim) {
    case 'claimed':
      return settledOnce(
        key,
        async () => store.markDone?.(key, ttlMs, claimToken),
        async () => store.delete?.(key, claimToken),
      );
    case 'done':
      return undefined;
    case 'processing':
      throw new EventInProgressError(`event ${key} is being handled by another delivery; deliver it again later`);
    default:
      return claim satisfies never;
  }
}

/** A handle whose first `complete()` or `release()` acts; later calls resolve at once. */
function settledOnce(key: string, complete: () => Promise<unknown>, release: () => Promise<unknown>): EventClaim {
  let settled = false;
  const once = (action: () => Promise<unknown>) => async (): Promise<void> => {
    if (settled) return;
    settled = true;
    await action();
  };
  return { key, complete: once(complete), release: once(release) };
}

/** A store's answer that is none of those its contract allows: the delivery fails and is sent again. */
function outsideContract(method: 'claim' | 'setIfAbsent', answer: unknown, expected: string): TypeError {
  const shown = typeof answer === 'string' ? `'${answer.slice(0, 40)}'` : answer === null ? 'null' : typeof answer;
  return new TypeError(`DedupeStore.${method}() answered ${shown}; expected ${expected}`);
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
