import type { CallEndReason } from './call-end.js';
import type { LevelLogger } from './logger.js';
import type { HttpMethod } from './types.js';
import { settle } from './thenable.js';

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
 *
 * The pipeline's observer is the guard ({@link guardInstruments}), never an instrument itself:
 * an instrument calls into code that is not the client's (a tracer provider, span processors,
 * exporters, a context manager, a meter, channel subscribers), and none of that code may change
 * a call. No method of the observer or of what it returns throws.
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

/** The client's instruments, each reported on its own when its guest code fails. */
type InstrumentName = 'diagnostics' | 'tracing' | 'metrics';

/** Reports a failure of an instrument's guest code; never throws. */
export type ReportFailure = (error: unknown) => void;

/**
 * One instrument (spans, metrics, channels), seen by the pipeline only through the guard: any of
 * its methods, and of the observations it returns, may throw.
 */
export interface Instrument {
  /** Which instrument this is, as its failures are reported. */
  readonly name: InstrumentName;
  /** As {@link CallObserver.enabled}. */
  readonly enabled: boolean;
  /**
   * As {@link CallObserver.start}; `failed` reports what the guard cannot catch: a promise that a
   * guest method typed `void` returned and that rejects (see {@link settle}).
   */
  start(call: CallStart, failed: ReportFailure): CallObservation | undefined;
  /** As {@link CallObserver.startTransactionWait}. */
  startTransactionWait?(wait: TransactionWaitStart, failed: ReportFailure): TransactionWaitObservation | undefined;
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

/** One observed call. Every method is called synchronously by the pipeline, through the guard. */
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
  /** Why it ended, by name (call-end.ts): `answered` on success. */
  readonly reason: CallEndReason;
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

/** One observed `wait()`. Every method is called synchronously, through the guard. */
export interface TransactionWaitObservation {
  /** Runs the polling: an observer that propagates context sees each poll's call as its child. */
  within?<R>(work: () => R): R;
  /** A poll answered with `status`. */
  polled(status: string): void;
  /** The wait is over: `error` is undefined once COMPLETED; else TransactionFailedError, TransactionTimeoutError, the abort reason… */
  end(error: unknown): void;
}

/** Where in a call's life an instrument failed, as reported. */
type FailurePoint = keyof CallObservation | keyof TransactionWaitObservation | 'enabled' | 'start' | 'startTransactionWait' | 'async';

/**
 * One instrument behind the guard. Its first failure is reported through the client's logger,
 * once for the client's life: an exporter that is down would otherwise log once per call. Later
 * failures are skipped in silence, and the instrument is still asked on every call, so one that
 * recovers is back at the next call.
 */
class Guest {
  readonly instrument: Instrument;
  readonly #logger: LevelLogger;
  #reported = false;
  /** Reports a rejection the guard could not catch (see `settle`), built once per client. */
  readonly failedAsync: ReportFailure = (error) => this.failed('async', error);

  constructor(instrument: Instrument, logger: LevelLogger) {
    this.instrument = instrument;
    this.#logger = logger;
  }

  failed(point: FailurePoint, error: unknown): void {
    if (this.#reported) return;
    this.#reported = true;
    const instrument = this.instrument.name;
    // The guest's error goes as a field, never into the message: turning it into text is guest code too.
    this.#logger.log(
      'warn',
      `${instrument} failed (at ${point}); calls go on without it where it fails, and further failures of ${instrument} are not logged`,
      {
        instrument,
        point,
        error,
      },
    );
  }
}

/** A part of an observation and the guest it belongs to. */
interface Part<O> {
  readonly guest: Guest;
  readonly observation: O;
}

/**
 * Runs `work` within a part's context, exactly once, and returns what `work` returned, whatever
 * the guest does: a `context.with` that throws before or after `work`, never calls it, calls it
 * twice, or returns something else.
 */
function guardedWithin<R>(part: Part<{ within?<V>(work: () => V): V }>, point: FailurePoint, work: () => R): R {
  // 0: not run yet; 1: returned `result`; 2: threw `thrown`, the pipeline's own error, passed on as it is.
  let state = 0;
  let result: R | undefined;
  let thrown: unknown;
  const once = (): R => {
    if (state === 0) {
      try {
        result = work();
        state = 1;
      } catch (error) {
        thrown = error;
        state = 2;
      }
    }
    if (state === 2) throw thrown;
    return result as R;
  };
  try {
    const returned: unknown = part.observation.within?.(once);
    // What `work` returned (the call's own promise) is passed on; anything else is the guest's.
    if (returned !== result) settle(returned, part.guest.failedAsync);
  } catch (error) {
    if (state !== 2 || error !== thrown) part.guest.failed(point, error);
  }
  if (state === 0) {
    part.guest.failed(point, new Error('the context manager did not run the call'));
    return once();
  }
  return once();
}

/** Tells every part of an observation of one event; a part that throws misses it, reported as failed at `point`. */
function forEachPart<O>(parts: ReadonlyArray<Part<O>>, point: FailurePoint, tell: (observation: O) => void): void {
  for (const { guest, observation } of parts) {
    try {
      tell(observation);
    } catch (error) {
      guest.failed(point, error);
    }
  }
}

/** Runs `work` within every part's context, the first part outermost. */
function nestWithin<R>(parts: ReadonlyArray<Part<{ within?<V>(work: () => V): V }>>, index: number, work: () => R): R {
  const part = parts[index];
  if (part === undefined) return work();
  const inner = (): R => nestWithin(parts, index + 1, work);
  return part.observation.within ? guardedWithin(part, 'within', inner) : inner();
}

class GuardedObservation implements CallObservation {
  readonly #parts: ReadonlyArray<Part<CallObservation>>;

  constructor(parts: ReadonlyArray<Part<CallObservation>>) {
    this.#parts = parts;
  }

  within<R>(work: () => R): R {
    return nestWithin(this.#parts, 0, work);
  }

  attempt(attempt: number, headers: Record<string, string>): void {
    forEachPart(this.#parts, 'attempt', (observation) => observation.attempt(attempt, headers));
  }

  attemptEnd(attempt: number, outcome: AttemptOutcome): void {
    forEachPart(this.#parts, 'attemptEnd', (observation) => observation.attemptEnd(attempt, outcome));
  }

  wait(reason: WaitReason, ms: number | undefined): void {
    forEachPart(this.#parts, 'wait', (observation) => observation.wait(reason, ms));
  }

  waitEnd(reason: WaitReason): void {
    forEachPart(this.#parts, 'waitEnd', (observation) => observation.waitEnd(reason));
  }

  end(outcome: CallEnd): void {
    forEachPart(this.#parts, 'end', (observation) => observation.end(outcome));
  }
}

class GuardedWaitObservation implements TransactionWaitObservation {
  readonly #parts: ReadonlyArray<Part<TransactionWaitObservation>>;

  constructor(parts: ReadonlyArray<Part<TransactionWaitObservation>>) {
    this.#parts = parts;
  }

  within<R>(work: () => R): R {
    return nestWithin(this.#parts, 0, work);
  }

  polled(status: string): void {
    forEachPart(this.#parts, 'polled', (observation) => observation.polled(status));
  }

  end(error: unknown): void {
    forEachPart(this.#parts, 'end', (observation) => observation.end(error));
  }
}

/** Whether a guest is enabled; one that cannot say is not. */
function isEnabled(guest: Guest): boolean {
  try {
    return guest.instrument.enabled;
  } catch (error) {
    guest.failed('enabled', error);
    return false;
  }
}

/**
 * The instruments behind the guard, the pipeline's only way to them: whatever an instrument's
 * guest code does (throws, rejects, a context manager that does not run the call), the call's
 * result, its timing and its requests stay those of an unobserved call. The instrument that
 * failed misses that event, the others still see it, and the failure is reported (see `Guest`).
 */
class GuardedObserver implements CallObserver {
  readonly #guests: readonly Guest[];

  constructor(guests: readonly Guest[]) {
    this.#guests = guests;
  }

  get enabled(): boolean {
    for (const guest of this.#guests) if (isEnabled(guest)) return true;
    return false;
  }

  start(call: CallStart): CallObservation | undefined {
    const parts: Array<Part<CallObservation>> = [];
    for (const guest of this.#guests) {
      if (!isEnabled(guest)) continue;
      try {
        const observation = guest.instrument.start(call, guest.failedAsync);
        if (observation) parts.push({ guest, observation });
      } catch (error) {
        guest.failed('start', error);
      }
    }
    return parts.length === 0 ? undefined : new GuardedObservation(parts);
  }

  startTransactionWait(wait: TransactionWaitStart): TransactionWaitObservation | undefined {
    const parts: Array<Part<TransactionWaitObservation>> = [];
    for (const guest of this.#guests) {
      if (!isEnabled(guest)) continue;
      try {
        const observation = guest.instrument.startTransactionWait?.(wait, guest.failedAsync);
        if (observation) parts.push({ guest, observation });
      } catch (error) {
        guest.failed('startTransactionWait', error);
      }
    }
    return parts.length === 0 ? undefined : new GuardedWaitObservation(parts);
  }
}

/**
 * The pipeline's one observer: the instruments the runtime has (undefined entries are left
 * out) behind the guard, reporting their failures through `logger`; undefined when none.
 */
export function guardInstruments(instruments: ReadonlyArray<Instrument | undefined>, logger: LevelLogger): CallObserver | undefined {
  const guests: Guest[] = [];
  for (const instrument of instruments) if (instrument !== undefined) guests.push(new Guest(instrument, logger));
  return guests.length === 0 ? undefined : new GuardedObserver(guests);
}
