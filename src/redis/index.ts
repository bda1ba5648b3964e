/**
 * Fleet mode: many processes of one account share one Redis, for their rate limits and for
 * deduplicating webhook deliveries. Needs `ioredis` (an optional peer dependency).
 */
export { RedisRateLimiter } from './rate-limiter.js';
export type { RedisRateLimiterOptions, StoreErrorPolicy } from './rate-limiter.js';
export { RedisDedupeStore } from './dedupe-store.js';
export type { RedisDedupeStoreOptions } from './dedupe-store.js';
export type { RedisConnection } from './connection.js';
