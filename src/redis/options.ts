import { limitsIssues, refuseUnknownLimitMembers } from '../core/config.js';
import { STORE_COMMAND_TIMEOUT_MS } from '../core/defaults.js';
import { ConfigurationError } from '../core/errors.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { OptionNames } from '../shared/option-names.js';
import { checkCommandTimeout, checkConnection, checkNamespace, type RedisConnection } from './connection.js';
import type { RedisRateLimiterOptions, StoreErrorPolicy } from './rate-limiter.js';

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
