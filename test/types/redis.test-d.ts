import type { Cluster, Redis } from 'ioredis';
import { describe, expectTypeOf, it } from 'vitest';
import type { RateLimiter } from '../../src/index.js';
import { RedisDedupeStore, RedisRateLimiter } from '../../src/redis/index.js';
import type { RedisConnection, RedisRateLimiterOptions } from '../../src/redis/index.js';
import type { DedupeStore } from '../../src/webhooks/index.js';

declare const redis: Redis;
declare const cluster: Cluster;

describe('mobile-partner-sdk/redis types', () => {
  it('takes an ioredis Redis or Cluster as it is', () => {
    expectTypeOf(redis).toExtend<RedisConnection>();
    expectTypeOf(cluster).toExtend<RedisConnection>();
  });

  it('is a RateLimiter and a DedupeStore', () => {
    expectTypeOf(new RedisRateLimiter({ redis })).toExtend<RateLimiter>();
    expectTypeOf(new RedisDedupeStore({ redis, ttlMs: 1000 })).toExtend<DedupeStore>();
  });

  it('takes the limits in the shapes of RateLimitOptions, and only the two store policies', () => {
    expectTypeOf<RedisRateLimiterOptions['account']>().toEqualTypeOf<{ limit: number; windowMs: number } | undefined>();
    // @ts-expect-error not a policy
    new RedisRateLimiter({ redis, onStoreError: 'retry' });
    // @ts-expect-error redis is required
    new RedisRateLimiter({ namespace: 'a' });
  });
});
