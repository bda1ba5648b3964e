/**
 * `mobile-partner-sdk/redis`, fleet mode: many processes of one account share one Redis, for
 * their rate limits and for deduplicating webhook deliveries. Needs `ioredis` (an optional peer
 * dependency); the classes take your own client and never close it.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { PartnerClient } from 'mobile-partner-sdk';
 * import { RedisRateLimiter } from 'mobile-partner-sdk/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
 * const client = new PartnerClient({ rateLimit: new RedisRateLimiter({ redis }) });
 * ```
 *
 * @packageDocumentation
 * @module mobile-partner-sdk/redis
 */
export { RedisRateLimiter } from './rate-limiter.js';
export type { RedisRateLimiterOptions, StoreErrorPolicy } from './options.js';
export { RedisDedupeStore } from './dedupe-store.js';
export type { RedisDedupeStoreOptions } from './dedupe-store.js';
export type { RedisConnection } from './connection.js';
