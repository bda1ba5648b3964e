/**
 * The types the client's core modules share, declared here (a module that imports nothing of
 * core) so that those modules import one another in one direction only. The public entry points
 * export them from the modules that use them.
 */
import type { Transaction } from '../schemas/transaction.js';

/** The least severe level passed to the {@link Logger}; `'off'` passes none. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/**
 * Any console-like logger (`console`, pino, winston). Messages and fields reach it already
 * redacted; a logger that throws never fails the call it describes.
 */
export interface Logger {
  /** Each request sent and each answer received. */
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Token exchanges and other events worth a line in production. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Retries, waits the server asked for, a limiter falling back. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Failures the client could not recover from on its own. */
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A limit of `limit` requests per `windowMs`. */
export interface WindowLimit {
  /** Requests admitted per window, an integer ≥ 1. */
  limit: number;
  /** The window's length in ms. */
  windowMs: number;
}

/** Client-side rate limiting (spec part 8). */
export interface RateLimitOptions {
  /** Account-wide limit; default 120 per 60 s. */
  account?: WindowLimit | undefined;
  /**
   * Per-endpoint limits keyed by route (`'POST /api/v1.1/esim'`, templates as in the spec);
   * merged over the spec's defaults.
   */
  endpoints?: Record<string, WindowLimit> | undefined;
}

/** The methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `X-RateLimit-*` headers of a non-throttled answer (spec part 8). */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Checked before the first poll (RequestValidationError naming the option, or the nearest one
 * of a member not named here): delays are integer
 * milliseconds up to 2^31−1; the poll intervals are at least 100. There is no "no deadline"
 * value: the longest wait is `timeoutMs: 2 ** 31 - 1` (about 24.8 days).
 */
export interface WaitOptions<R = unknown> {
  /** Give up after this long with TransactionTimeoutError; default 300 000 (5 minutes), 1 to 2^31−1. */
  timeoutMs?: number;
  /** First delay between polls; it grows ×1.5 per poll up to `maxPollIntervalMs`. Default 1 000, at least 100. */
  pollIntervalMs?: number;
  /** Ceiling of the delay between polls; default 10 000, at least 100. */
  maxPollIntervalMs?: number;
  /** Aborting rejects the wait with the signal's reason and stops polling at once. */
  signal?: AbortSignal;
  /** Called with the transaction whenever its status changes (the first poll counts as a change). */
  onProgress?: (transaction: Transaction<R>) => void;
}
