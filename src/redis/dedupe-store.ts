import { STORE_COMMAND_TIMEOUT_MS } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { OptionNames } from '../shared/option-names.js';
import type { DedupeClaim, DedupeStore } from '../webhooks/dedupe.js';
import { checkCommandTimeout, checkConnection, checkNamespace, type RedisConnection, withTimeout } from './connection.js';
import { claimScript, decodeClaim, decodeDone, encodeClaim, encodeMarkDone, encodeRelease, markDoneScript, releaseScript } from './dedupe-scripts.js';

/** Options of {@link RedisDedupeStore}. */
export interface RedisDedupeStoreOptions {
  /** An ioredis `Redis` or `Cluster`; shared, never closed by the store. */
  redis: RedisConnection;
  /** The first part of every key; default `'mobile-partner-sdk'`. */
  namespace?: string | undefined;
  /**
   * How long a handled event's key lives, overriding the deduplicator's `ttlMs` for every key
   * this store records as done (at least 1 ms); unset, the deduplicator's TTL is used. A claim
   * lives for the deduplicator's `leaseMs`.
   */
  ttlMs?: number | undefined;
  /** How long the store waits for one Redis command before it rejects (whole ms, at least 1); default 1,000. */
  commandTimeoutMs?: number | undefined;
}

const STORE_OPTION_NAMES = {
  redis: true,
  namespace: true,
  ttlMs: true,
  commandTimeoutMs: true,
} as const satisfies OptionNames<RedisDedupeStoreOptions>;

/**
 * A {@link DedupeStore} every receiver replica shares: the first to claim an event (for the
 * deduplicator's short lease) handles it, and records it as done (for the long TTL) once its
 * handler succeeded; a delivery sent twice to two replicas is handled once. A Redis error or a
 * command past its timeout rejects: the adapter answers 500 and the sender delivers again,
 * rather than an event being lost or handled twice at once.
 */
export class RedisDedupeStore implements DedupeStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #ttlMs: number | undefined;
  readonly #timeoutMs: number;

  constructor(options: RedisDedupeStoreOptions) {
    refuseUnknownOptions(options, STORE_OPTION_NAMES, 'RedisDedupeStore');
    this.#redis = checkConnection((options as Partial<RedisDedupeStoreOptions> | undefined)?.redis, 'RedisDedupeStore');
    this.#prefix = `${checkNamespace(options.namespace, 'RedisDedupeStore') ?? 'mobile-partner-sdk'}:dedupe:`;
    this.#timeoutMs = checkCommandTimeout(options.commandTimeoutMs, 'RedisDedupeStore', STORE_COMMAND_TIMEOUT_MS);
    const ttlMs = options.ttlMs;
    if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs >= 1)) {
      throw new ConfigurationError(
        'invalid RedisDedupeStore option ttlMs: must be a whole number of milliseconds, at least 1',
        'CONFIGURATION_ERROR',
        'ttlMs',
      );
    }
    this.#ttlMs = ttlMs;
  }

  #ms(ttlMs: number): number {
    return Math.max(1, Math.ceil(this.#ttlMs ?? ttlMs));
  }

  async setIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    const reply = await withTimeout(this.#redis.set(this.#prefix + key, '1', 'PX', this.#ms(ttlMs), 'NX'), this.#timeoutMs);
    return reply === 'OK';
  }

  async claim(key: string, claimToken: string, leaseMs: number): Promise<DedupeClaim> {
    const lease = Math.max(1, Math.ceil(leaseMs));
    const call = encodeClaim({ event: this.#prefix + key, claimToken, leaseMs: lease });
    return decodeClaim(await withTimeout(claimScript.run(this.#redis, call.keys, call.args), this.#timeoutMs));
  }

  async markDone(key: string, ttlMs: number): Promise<void> {
    const call = encodeMarkDone({ event: this.#prefix + key, ttlMs: this.#ms(ttlMs) });
    decodeDone(await withTimeout(markDoneScript.run(this.#redis, call.keys, call.args), this.#timeoutMs), 'mark-done');
  }

  async delete(key: string, claimToken?: string): Promise<void> {
    if (claimToken === undefined) {
      await withTimeout(this.#redis.del(this.#prefix + key), this.#timeoutMs);
      return;
    }
    const call = encodeRelease({ event: this.#prefix + key, claimToken });
    decodeDone(await withTimeout(releaseScript.run(this.#redis, call.keys, call.args), this.#timeoutMs), 'release');
  }
}
