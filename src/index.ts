export { PartnerClient } from './client.js';
export type { RawRequest } from './client.js';
export * from './core/errors.js';
export { ApiPromise } from './core/api-promise.js';
export type { ClientOptions, Logger, LogLevel, RateLimitOptions, WindowLimit } from './core/options.js';
export type { RequestOptions, ResponseInfo, RateLimitInfo, PageMeta, HttpMethod } from './core/request.js';
