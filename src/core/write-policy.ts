import { ApiError, ClientClosedError, ConflictError, ConnectionError, DeliveryFailedError, InvalidResponseError } from './errors.js';
import type { RequestSpec } from './request.js';
import { isRetryable } from './retry.js';

/**
 * spec part 7, 409 row: "idempotent replay while the original call is in flight". Only a retry
 * of a keyed write can meet it; a first attempt's 409 CONFLICT is a state conflict. A finished
 * original is replayed with `Idempotency-Replayed: true`, never as this 409.
 */
function isInFlightReplay(error: unknown): boolean {
  return error instanceof ConflictError && error.code === 'CONFLICT' && error.headers['idempotency-replayed'] !== 'true';
}

/**
 * Marks the final error of a write that may have been applied although no idempotency promise
 * covers it, and says so in its message, so that nobody retries it blindly.
 */
export function markMayHaveSucceeded(error: ConnectionError | ApiError | ClientClosedError, key?: string): void {
  if (error.mayHaveSucceeded) return;
  // The field is read-only to callers; the pipeline sets it once, on the call's final error.
  (error as { mayHaveSucceeded: boolean }).mayHaveSucceeded = true;
  if (key !== undefined) (error as { idempotencyKey: string | undefined }).idempotencyKey = key;
  error.message += key
    ? ` (the write may have been applied: send it again with idempotencyKey '${key}' to apply it at most once)`
    : ' (the write may have been applied: check its state before sending it again)';
}

/**
 * Whether an answer leaves a write's outcome open (the errors guide's table of spec part 7, held
 * to this by a test). A 4xx refused the write (a 429 before processing it, spec part 8 rule 1).
 * A 5xx may have come after the write was applied, but for the coded answers that say what
 * happened: 501 NOT_IMPLEMENTED (the operator cannot do it) and 502 DELIVERY_FAILED (the test
 * delivery was made, and the partner's endpoint failed it). A 2xx whose body could not be read
 * was applied or not, nobody can tell.
 */
function leavesOutcomeOpen(error: ApiError): boolean {
  if (error instanceof InvalidResponseError && error.status < 300) return true;
  if (error.status < 500) return false;
  return !(error.status === 501 && error.code === 'NOT_IMPLEMENTED') && !(error instanceof DeliveryFailedError);
}

/**
 * The final failure of a write: when the request may have been processed (not provably unsent,
 * an answer that leaves its outcome open), its outcome is unknown, and the error says so. A
 * write retried under an Idempotency-Key (one the spec promises, or the caller's own) also names
 * the key, which the caller may never have seen: sending the write again with it replays the
 * original if it was applied instead of applying it twice.
 */
function markIfMaybeApplied(error: unknown, key?: string): never {
  if (error instanceof ConnectionError || error instanceof ClientClosedError) {
    if (!error.requestNotSent) markMayHaveSucceeded(error, key);
  } else if (error instanceof ApiError && leavesOutcomeOpen(error)) {
    markMayHaveSucceeded(error, key);
  }
  throw error;
}

/**
 * A call's write policy (spec parts 7 and 8): its Idempotency-Key, which failures may be tried
 * again, and what its final error says about a write that may have been applied.
 */
export class WritePolicy {
  /** Sent as `Idempotency-Key` on every attempt and the 401 replay (spec part 8 rule 4): the caller's, or generated. */
  readonly idempotencyKey: string | undefined;
  /**
   * Retried after a failure that may have reached the server only where idempotency is
   * promised: a read, a route the spec marks (idem), or the caller's own key (its assertion).
   */
  readonly #retrySafe: boolean;
  /** A write no idempotency promise covers: never retried once it may have reached the server. */
  readonly #unsafeWrite: boolean;
  /** A retried write's Idempotency-Key (the spec promises it, or it is the caller's): named if all attempts fail. */
  readonly #settlingKey: string | undefined;

  /** `retrySafe` overrides the rule for a call the client makes on its own (the token exchange: no side effect). */
  constructor(spec: RequestSpec<unknown>, retrySafe?: boolean) {
    const callerKey = spec.options?.idempotencyKey;
    this.idempotencyKey = callerKey ?? (spec.idempotent || spec.generateIdempotencyKey ? globalThis.crypto.randomUUID() : undefined);
    this.#retrySafe = retrySafe ?? (spec.method === 'GET' || spec.idempotent || callerKey !== undefined);
    this.#unsafeWrite = !this.#retrySafe;
    this.#settlingKey = retrySafe === undefined && spec.method !== 'GET' ? this.idempotencyKey : undefined;
  }

  /** Whether a failed attempt may be tried again (see `isRetryable`). */
  mayRetry(error: unknown): boolean {
    return isRetryable(error, this.#retrySafe);
  }

  /**
   * Our own earlier attempt is still being processed (a retry of a keyed write met the spec's
   * in-flight 409): ask again with the same key. Not a retry: it cannot duplicate the write.
   */
  awaitsOriginal(error: unknown, sends: number): boolean {
    return this.idempotencyKey !== undefined && sends > 1 && isInFlightReplay(error);
  }

  /** The final error of a write whose outcome is unknown says so (see markIfMaybeApplied). */
  settle<T>(result: Promise<T>): Promise<T> {
    if (this.#unsafeWrite) return result.catch(markIfMaybeApplied);
    const key = this.#settlingKey;
    return key === undefined ? result : result.catch((error: unknown) => markIfMaybeApplied(error, key));
  }
}
