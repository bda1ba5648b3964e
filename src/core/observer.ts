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
}

/** What is known of a call when it starts: nothing secret, no body, no concrete path. */
export interface CallStart {
  /** `token` for the exchange the client does on its own, `api` for every other call. */
  readonly kind: 'api' | 'token';
  readonly method: HttpMethod;
  /** Method and path template (`GET /api/v1.1/sims/{iccid}`): never the path with its values. */
  readonly route: string;
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
