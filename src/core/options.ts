import type { Middleware } from './middleware.js';
import type { Dispatcher } from 'undici';
import type { RateLimiter } from './rate-limit.js';
import type { LogLevel, Logger, RateLimitOptions } from './types.js';

export type { LogLevel, Logger, RateLimitOptions, WindowLimit } from './types.js';

/**
 * Options of {@link PartnerClient}. Every option is optional: credentials and the base URL fall
 * back to `PARTNER_API_BASE_URL`, `PARTNER_API_KEY` and `PARTNER_API_SECRET`. Options are checked
 * when the client is built: a bad one, or a member not named here, throws a
 * {@link ConfigurationError} naming it (and the nearest option, for an unknown one).
 */
export interface ClientOptions {
  /** The API's origin, e.g. `https://api.example.com`. Default: `process.env.PARTNER_API_BASE_URL`. */
  baseUrl?: string | undefined;
  /** The API key for the token exchange. Default: `process.env.PARTNER_API_KEY`. */
  key?: string | undefined;
  /** The API secret for the token exchange. Default: `process.env.PARTNER_API_SECRET`. */
  secret?: string | undefined;
  /** Longest one attempt may take, in ms; default 30 000. A call's retries each get their own. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt; default 2, at most 10. Only failures safe to repeat are retried. */
  maxRetries?: number | undefined;
  /**
   * Client-side limiter options (the spec's limits by default), a {@link RateLimiter} of your own
   * (a fleet's shared limiter, such as `RedisRateLimiter`), used as is and never closed by the
   * client, or false to disable limiting.
   */
  rateLimit?: RateLimitOptions | RateLimiter | false | undefined;
  /** A WHATWG fetch; when given it replaces the built-in undici transport. */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Functions run around every attempt of every call, the token exchange included, first to last
   * ({@link Middleware}): a header of your own, logging, a cache, a stub. A call's own
   * `middleware` runs inside these.
   */
  middleware?: readonly Middleware[] | undefined;
  /** An undici Dispatcher (proxy, custom pool) for the built-in transport. */
  dispatcher?: Dispatcher | undefined;
  /** Where the client logs; default none (silent). */
  logger?: Logger | undefined;
  /** The least severe level passed to `logger`; default `'warn'`. */
  logLevel?: LogLevel | undefined;
  /** Allow credentials over plain http:// to a non-loopback host. Default false. */
  allowInsecureHttp?: boolean | undefined;
  /** 'strict' (default) validates every response against its schema; 'off' trusts the server. */
  validateResponses?: 'strict' | 'off' | undefined;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string> | undefined;
  /**
   * The largest answer body read, in bytes; default 8 MiB (8 388 608). A larger answer is
   * refused as soon as its Content-Length or its bytes so far exceed it, with a
   * `ResponseTooLargeError`, and not retried.
   */
  maxResponseBytes?: number | undefined;
  /**
   * The ceiling on any wait the server asks for, in ms; default 60 000. A Retry-After above it
   * is not waited: the call fails at once with the `RateLimitError` (its `retryAfterSeconds`
   * says what the server asked). Every pause the server imposes (a 429's Retry-After,
   * X-RateLimit-Remaining 0 until the reset) is believed for this long at most from the answer
   * that imposed it; then calls are sent and the server asked again. 0 turns off waiting on the
   * server.
   */
  maxServerWaitMs?: number | undefined;
  /**
   * Send W3C trace context (`traceparent`, and `tracestate` when there is one) with every
   * request, naming the call's span as the parent, so the partner API's traces join yours.
   * Default false: nothing about your traces leaves the process. Takes effect only while an
   * OpenTelemetry tracer provider is registered; baggage is never sent.
   */
  propagateTraceContext?: boolean | undefined;
}

/** Options of `client.close()`. */
export interface CloseOptions {
  /**
   * How long calls already started may run before they are cut with ClientClosedError;
   * default 30 000, an integer from 1 to 2^31−1 ms.
   */
  timeoutMs?: number;
}
