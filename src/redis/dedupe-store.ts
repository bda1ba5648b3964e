import { STORE_COMMAND_TIMEOUT_MS } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';
import type { DedupeStore } from '../webhooks/dedupe.js';
import { checkConnection, checkNamespace, type RedisConnection, withTimeout } from './connection.js';

/** Options of {@link RedisDedupeStore}. */
export interface RedisDedupeStoreOptions {
  /** An ioredis `Redis` or `Cluster`; shared, never closed by the store. */
  redis: RedisConnection;
  /** The first part of every key; default `'mobile-partner-sdk'`. */
  namespace?: string | undefined;
  /**
   * How long a key lives, overriding the deduplicator's `ttlMs` for every key this store sets
   * (at least 1 ms); unset, the deduplicator's TTL is used.
   */
  ttlMs?: number | undefined;
}

/**
 * A {@link DedupeStore} every receiver replica shares: the first `SET key 1 NX PX ttl` wins the
 * event, so a delivery sent twice to two replicas is handled once. A Redis error or a command
 * past its timeout rejects: the adapter answers 500 and the sender delivers again, rather than
 * handling an event twice.
 */
export class RedisDedupeStore implements DedupeStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #ttlMs: number | undefined;

  constructor(options: RedisDedupeStoreOptions) {
    this.#redis = checkConnection((options as Partial<RedisDedupeStoreOptions> | undefined)?.redis, 'RedisDedupeStore');
    this.#prefix = `${checkNamespace(options.namespace, 'RedisDedupeStore') ?? 'mobile-partner-sdk'}:dedupe:`;
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

  async setIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    const reply = await withTimeout(
      this.#redis.set(this.#prefix + key, '1', 'PX', Math.max(1, Math.ceil(this.#ttlMs ?? ttlMs)), 'NX'),
      STORE_COMMAND_TIMEOUT_MS,
    );
    return reply === 'OK';
  }

  async delete(key: string): Promise<void> {
    await withTimeout(this.#redis.del(this.#prefix + key), STORE_COMMAND_TIMEOUT_MS);
  }
}
