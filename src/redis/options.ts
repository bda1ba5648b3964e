import { limitsIssues, refuseUnknownLimitMembers } from '../core/config.js';
import { STORE_COMMAND_TIMEOUT_MS } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { RateLimitOptions } from '../core/types.js';
import type { OptionNames } from '../shared/option-names.js';
import { checkCommandTimeout, checkConnection, checkNamespace, type RedisConnection } from './connection.js';

/** What the limiter does when Redis does not answer: see docs/fleet.md. */
export type StoreErrorPolicy = 'fail-open' | 'fail-closed';

export interface RedisRateLimiterOptions extends RateLimitOptions {
  /** An ioredis `Redis` or `Cluster`; shared, never closed by the limiter. */
  redis: RedisConnection;
  /** The first part of every key; default `'mobile-partner-sdk'`. */
  namespace?: string | undefined;
  /**
   * `'fail-open'` (default): while Redis is unavailable each process limits itself in memory
   * with the same limits, and says so once at warn. `'fail-closed'`: calls fail with a
   * `ConnectionError` (`requestNotSent: true`) instead.
   */
  onStoreError?: StoreErrorPolicy | undefined;
  /**
   * How long the limiter waits for one Redis command before it counts Redis as unavailable
   * (whole ms, at least 1); default 1,000. Whatever Redis does with a command it answers later
   * is corrected by the route's next run (see docs/fleet.md).
   */
  commandTimeoutMs?: number | undefined;
}

const POLICIES: ReadonlySet<unknown> = new Set<StoreErrorPolicy>(['fail-open', 'fail-closed']);

const LIMITER_OPTION_NAMES = {
  redis: true,
  account: true,
  endpoints: true,
  namespace: true,
  onStoreError: true,
  commandTimeoutMs: true,
} as const satisfies OptionNames<RedisRateLimiterOptions>;

/** The limiter's options, parsed where they enter: a bad one is a ConfigurationError naming it. */
export function checkLimiterOptions(options: unknown): {
  redis: RedisConnection;
  namespace: string | undefined;
  onStoreError: StoreErrorPolicy | undefined;
  commandTimeoutMs: number;
} {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError('RedisRateLimiter needs options: { redis, account?, endpoints?, namespace?, onStoreError?, commandTimeoutMs? }');
  }
  const record = options as Record<string, unknown>;
  refuseUnknownOptions(record, LIMITER_OPTION_NAMES, 'RedisRateLimiter');
  refuseUnknownLimitMembers(record, 'RedisRateLimiter', '');
  const redis = checkConnection(record['redis'], 'RedisRateLimiter');
  const namespace = checkNamespace(record['namespace'], 'RedisRateLimiter');
  const commandTimeoutMs = checkCommandTimeout(record['commandTimeoutMs'], 'RedisRateLimiter', STORE_COMMAND_TIMEOUT_MS);
  const policy = record['onStoreError'];
  if (policy !== undefined && !POLICIES.has(policy)) {
    throw new ConfigurationError(
      "invalid RedisRateLimiter option onStoreError: must be 'fail-open' or 'fail-closed'",
      'CONFIGURATION_ERROR',
      'onStoreError',
    );
  }
  const first = limitsIssues(record, 'RedisRateLimiter')[0];
  if (first) throw new ConfigurationError(`invalid option ${first.path}: ${first.message}`, 'CONFIGURATION_ERROR', first.path.split('.')[1]);
  return { redis, namespace, onStoreError: policy as RedisRateLimiterOptions['onStoreError'], commandTimeoutMs };
}
