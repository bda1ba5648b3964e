import { ApiError, ConnectionError, DeliveryFailedError, RateLimitError, TimeoutError } from './errors.js';

import { BACKOFF_BASE_MS, BACKOFF_CAP_MS } from './defaults.js';

export { DEFAULT_MAX_SERVER_WAIT_MS } from './defaults.js';

/**
 * Whether a failed attempt may be tried again (spec part 7, "Retry guidance").
 * `retrySafe`: a GET, a route the spec marks (idem), or a write carrying the caller's own
 * Idempotency-Key (the caller's assertion that the route honours it). Other writes, the
 * asynchronous ones with a generated key included, are retried only when the failure proves the
 * server did not act on them: the connection was refused, or a 429 turned the request away
 * before it was processed (spec part 8 rule 1).
 */
export function isRetryable(error: unknown, retrySafe: boolean): boolean {
  if (error instanceof TimeoutError) return retrySafe;
  if (error instanceof ConnectionError) return retrySafe || error.requestNotSent;
  if (error instanceof RateLimitError) return true;
  if (!(error instanceof ApiError) || !retrySafe) return false;
  // 401 is handled by re-authentication inside the attempt. 501 NOT_IMPLEMENTED and 502
  // DELIVERY_FAILED are answers, not hiccups (spec part 7); a gateway's 502 is a hiccup.
  return error.status >= 500 && error.status !== 501 && !(error instanceof DeliveryFailedError);
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base × 2^retry)). */
function backoffMs(retryIndex: number): number {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retryIndex);
}

/**
 * Jitter added on top of a Retry-After so that many calls throttled together do not all come
 * back in the same millisecond: uniform in [0, 100 ms + 10 % of the wait), at most 1 s.
 */
function retryAfterJitterMs(waitMs: number): number {
  return Math.random() * Math.min(1000, 100 + waitMs / 10);
}

/**
 * How long to wait before retry number `retryIndex` (0-based); undefined when the server asked
 * for a longer wait than `maxServerWaitMs`, which is not waited out: the call fails at once with
 * the server's answer. A Retry-After is never shortened (spec part 8 rule 1); jitter is added on
 * top, within the ceiling.
 */
export function retryDelayMs(error: unknown, retryIndex: number, maxServerWaitMs: number): number | undefined {
  if (error instanceof RateLimitError && error.retryAfterSeconds !== undefined) {
    const waitMs = error.retryAfterSeconds * 1000;
    if (waitMs > maxServerWaitMs) return undefined;
    return Math.max(waitMs, Math.min(waitMs + retryAfterJitterMs(waitMs), maxServerWaitMs));
  }
  return backoffMs(retryIndex);
}

export interface RetryHooks<T> {
  attempt(attemptNumber: number): Promise<T>;
  /** Decides and waits; resolves false to give up with the attempt's error. */
  beforeRetry(error: unknown, retryIndex: number): Promise<boolean>;
}

/**
 * Runs `hooks.attempt` up to `maxRetries + 1` times: after each failure but the last,
 * `hooks.beforeRetry` decides and waits (it knows Retry-After, the deadline and the signal), so
 * the loop itself never waits. The first attempt runs directly: a call that succeeds allocates
 * nothing for the loop.
 */
export function withRetries<T>(hooks: RetryHooks<T>, maxRetries: number): Promise<T> {
  const first = hooks.attempt(1);
  return maxRetries <= 0 ? first : first.then(undefined, (error: unknown) => retryAfterFirst(hooks, maxRetries, error));
}

async function retryAfterFirst<T>(hooks: RetryHooks<T>, maxRetries: number, error: unknown): Promise<T> {
  let failure = error;
  for (let retryIndex = 0; retryIndex < maxRetries; retryIndex++) {
    if (!(await hooks.beforeRetry(failure, retryIndex))) throw failure;
    try {
      return await hooks.attempt(retryIndex + 2);
    } catch (next) {
      failure = next;
    }
  }
  throw failure;
}
