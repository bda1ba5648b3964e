import type { HttpMethod } from './request.js';

/**
 * The one seam of the call pipeline: what instrumentation (tracing, metrics, diagnostics
 * channels) sees of a call's life. The pipeline holds at most one observer; without one, each
 * event costs the call a single branch on `undefined`.
 *
 * Events of one call, in order: `start` once; then per attempt `attempt` … `attemptEnd`, with
 * `wait`/`waitEnd` around any time the call spends not sending (a rate-limit slot, a retry's
 * backoff or Retry-After, an earlier attempt still in progress on the server); `end` once.
 * The token exchange is a call of its own (`kind: 'token'`), started by the first call that
 * needs a token: an observer that runs `within` a context sees it as that call's child.
 */
export interface CallObserver {
  /** Whether any call is to be observed now (a subscriber, a registered tracer): checked before `start`, so an idle observer builds nothing. */
  readonly enabled: boolean;
  /** A call starts. Return what observes it, or undefined to leave it unobserved. */
  start(call: CallStart): CallObservation | undefined;
  /**
   * `wait()` of an asynchronous operation starts polling (checked against `enabled` first, like
   * `start`). Its polls are calls of their own, started `within` the returned observation.
   */
  startTransactionWait?(wait: TransactionWaitStart): TransactionWaitObservation | undefined;
}

/** What is known of a call when it starts: nothing secret, no body, no concrete path. */
export interface CallStart {
  /** `token` for the exchange the client does on its own, `api` for every other call. */
  readonly kind: 'api' | 'token';
  readonly method: HttpMethod;
  /**
   * Method and path template (`GET /api/v1.1/sims/{iccid}`), never the path with its values;
   * except for `client.request()`, whose route is the path as given (see `rawPath`).
   */
  readonly route: string;
  /** The call came from `client.request()`: `route` is not a template and may carry values (an ICCID, an email). */
  readonly rawPath: boolean;
  /** The API's origin (`https://api.example.com`). */
  readonly origin: string;
  /** Whether the call sends an Idempotency-Key (never its value). */
  readonly idempotencyKey: boolean;
}

/** Why the call is not sending right now. */
export type WaitReason = 'rate-limit' | 'retry' | 'in-flight-original';

/** The answer an attempt got, or the failure it ended with. */
interface AttemptOutcome {
  /** The HTTP status, when an answer arrived. */
  readonly status: number | undefined;
  /** The failure of the attempt (a transport error, a timeout, an error answer), if it failed. */
  readonly error: unknown;
}

/** One observed call. Every method is called synchronously by the pipeline and must not throw. */
export interface CallObservation {
  /**
   * Runs the call's work. An observer that propagates context (a tracing span made current)
   * runs `work` inside it, so the token exchange it triggers is seen as its child.
   */
  within?<R>(work: () => R): R;
  /**
   * Attempt `attempt` (1-based, counting the 401 replay) is about to be sent with `headers`
   * (lower-case names): an observer may add propagation headers (`traceparent`) to them.
   */
  attempt(attempt: number, headers: Record<string, string>): void;
  /** The attempt is over: an answer came (its status) or it failed. */
  attemptEnd(attempt: number, outcome: AttemptOutcome): void;
  /** The call starts waiting; `ms` is the wait when known in advance (a retry's delay). */
  wait(reason: WaitReason, ms: number | undefined): void;
  /** The wait started by the last `wait` is over (passed, or cut by an error). */
  waitEnd(reason: WaitReason): void;
  /**
   * The call is over: `error` is undefined on success. `status` is the final answer's HTTP
   * status, if any; `attempts` the number of requests sent; `replayed` whether the server
   * answered with `Idempotency-Replayed: true`.
   */
  end(outcome: CallEnd): void;
}

/** How a call ended. */
export interface CallEnd {
  readonly error: unknown;
  readonly status: number | undefined;
  readonly attempts: number;
  readonly replayed: boolean;
  /** Whether the answer's `data` was checked against its schema (validation on, or a route that always checks). */
  readonly validated: boolean;
}

/** What is known of a transaction's wait when it starts: no transaction id (it is a credential of the poll). */
export interface TransactionWaitStart {
  /** The operation's route (`POST /api/v1.1/esim`); undefined for `client.transactions.wait(id)`, which knows only the id. */
  readonly operation: string | undefined;
}

/** One observed `wait()`. Every method is called synchronously and must not throw. */
export interface TransactionWaitObservation {
  /** Runs the polling: an observer that propagates context sees each poll's call as its child. */
  within?<R>(work: () => R): R;
  /** A poll answered with `status`. */
  polled(status: string): void;
  /** The wait is over: `error` is undefined once COMPLETED; else TransactionFailedError, TransactionTimeoutError, the abort reason… */
  end(error: unknown): void;
}

/** Runs `work` within every part's context, the first part outermost. */
function nestWithin<R>(parts: ReadonlyArray<{ within?<V>(work: () => V): V }>, index: number, work: () => R): R {
  const part = parts[index];
  if (part === undefined) return work();
  const inner = (): R => nestWithin(parts, index + 1, work);
  return part.within ? part.within(inner) : inner();
}

class CombinedObservation implements CallObservation {
  readonly #parts: readonly CallObservation[];

  constructor(parts: readonly CallObservation[]) {
    this.#parts = parts;
  }

  within<R>(work: () => R): R {
    return nestWithin(this.#parts, 0, work);
  }

  attempt(attempt: number, headers: Record<string, string>): void {
    for (const part of this.#parts) part.attempt(attempt, headers);
  }

  attemptEnd(attempt: number, outcome: AttemptOutcome): void {
    for (const part of this.#parts) part.attemptEnd(attempt, outcome);
  }

  wait(reason: WaitReason, ms: number | undefined): void {
    for (const part of this.#parts) part.wait(reason, ms);
  }

  waitEnd(reason: WaitReason): void {
    for (const part of this.#parts) part.waitEnd(reason);
  }

  end(outcome: CallEnd): void {
    for (const part of this.#parts) part.end(outcome);
  }
}

class CombinedWaitObservation implements TransactionWaitObservation {
  readonly #parts: readonly TransactionWaitObservation[];

  constructor(parts: readonly TransactionWaitObservation[]) {
    this.#parts = parts;
  }

  within<R>(work: () => R): R {
    return nestWithin(this.#parts, 0, work);
  }

  polled(status: string): void {
    for (const part of this.#parts) part.polled(status);
  }

  end(error: unknown): void {
    for (const part of this.#parts) part.end(error);
  }
}

/** Several observers behind the one seam: only those `enabled` when a call starts observe it. */
class CombinedObserver implements CallObserver {
  readonly #observers: readonly CallObserver[];

  constructor(observers: readonly CallObserver[]) {
    this.#observers = observers;
  }

  get enabled(): boolean {
    for (const observer of this.#observers) if (observer.enabled) return true;
    return false;
  }

  start(call: CallStart): CallObservation | undefined {
    const parts: CallObservation[] = [];
    for (const observer of this.#observers) {
      const part = observer.enabled ? observer.start(call) : undefined;
      if (part) parts.push(part);
    }
    return parts.length <= 1 ? parts[0] : new CombinedObservation(parts);
  }

  startTransactionWait(wait: TransactionWaitStart): TransactionWaitObservation | undefined {
    const parts: TransactionWaitObservation[] = [];
    for (const observer of this.#observers) {
      const part = observer.enabled ? observer.startTransactionWait?.(wait) : undefined;
      if (part) parts.push(part);
    }
    return parts.length <= 1 ? parts[0] : new CombinedWaitObservation(parts);
  }
}

/** One observer for the pipeline out of those the runtime has (undefined entries are left out); undefined when none. */
export function combineObservers(observers: ReadonlyArray<CallObserver | undefined>): CallObserver | undefined {
  const present = observers.filter((observer): observer is CallObserver => observer !== undefined);
  return present.length <= 1 ? present[0] : new CombinedObserver(present);
}
