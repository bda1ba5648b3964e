import { endError } from './call-end.js';
import { DEADLINE_SLACK_MS } from './defaults.js';
import { type ClientClosedError, PartnerError, TimeoutError } from './errors.js';
import type { Scrubber } from './redact.js';
import { allowSharedSignal } from './runtime.js';
import { MAX_TIMER_MS, type Sleepers, monotonicNow } from './sleep.js';
import type { Admission } from './window-gate.js';
import { AttemptSignal, toConnectionError } from './wire.js';

function onAttemptTimeout(lifetime: CallLifetime): void {
  lifetime.timeOut();
}

/**
 * A call's time and cancellation: the caller's signal (the call rejects with its reason), the
 * attempt timer (`timeoutMs`, TimeoutError), the call's deadline (`timeoutMs × attempts + slack`),
 * the client's cut (`destroy()`, or `close()` past its timeout), and the limiter's admission, whose
 * wait is bounded by the same deadline and ended by the same signal and cut. Every wait of the call
 * (token, limiter, backoff, Retry-After, an original still in flight) goes through it. The endings
 * it decides are named, and their errors built, in call-end.ts.
 */
export class CallLifetime implements Admission {
  /** `METHOD /template`, named by the errors built here. */
  readonly #route: string;
  readonly #callerSignal: AbortSignal | undefined;
  /** Per attempt. */
  readonly timeoutMs: number;
  /** The deadline's length: every attempt at its full timeout, plus one Retry-After of a window. */
  readonly #budgetMs: number;
  /** A limiter the client owns is closed by the cut; one given as an option is left through `signal`. */
  readonly #ownsLimiter: boolean;
  /** Runs from the first admission: queueing behind our own limiter is pacing, not a retry. */
  #deadlineAt = 0;
  /** The deadline of a wait for the first admission, set when the limiter first makes this call wait. */
  #queueDeadline = 0;
  /** The attempt in flight, cut by the caller's signal, the attempt timer or the client. */
  #attempt: AttemptSignal | undefined;
  /** The attempt's timer, and the timeout it was armed with (`timeoutMs`, or less near the deadline). */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #attemptTimeoutMs = 0;
  #timedOut = false;
  /** Set when the client cut this call (`destroy()`, or `close()` past its timeout): the call's final error. */
  #closed: ClientClosedError | undefined;
  /** Aborted by `cut()`: ends a wait in a limiter the client does not own (see `signal`). */
  #cutController: AbortController | undefined;
  /** The caller's signal joined with the cut, built once per call for a limiter the client does not own. */
  #admissionSignal: AbortSignal | undefined;

  constructor(route: string, signal: AbortSignal | undefined, timeoutMs: number, maxRetries: number, ownsLimiter: boolean) {
    this.#route = route;
    this.#callerSignal = signal;
    this.timeoutMs = timeoutMs;
    this.#budgetMs = timeoutMs * (maxRetries + 1) + DEADLINE_SLACK_MS;
    this.#ownsLimiter = ownsLimiter;
  }

  /** The caller's own signal, for a wait the call joins but does not own (a token exchange). */
  get callerSignal(): AbortSignal | undefined {
    return this.#callerSignal;
  }

  /** The caller gave up: no retry, and the call rejects with the signal's reason. */
  get aborted(): boolean {
    return this.#callerSignal?.aborted === true;
  }

  /**
   * Runs the whole call under the caller's signal: its abort cuts the attempt in flight, and the
   * call then rejects with the signal's reason whatever failed. Without a signal there is nothing
   * to listen to, so no extra async frame.
   */
  guard<T>(run: () => Promise<T>): Promise<T> {
    const signal = this.#callerSignal;
    return signal ? this.#guarded(signal, run) : run();
  }

  async #guarded<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
    signal.throwIfAborted();
    allowSharedSignal(signal);
    signal.addEventListener('abort', this);
    try {
      return await run();
    } catch (error) {
      // A caller's abort is final and reported as the caller's own reason.
      if (signal.aborted) throw signal.reason;
      throw error;
    } finally {
      signal.removeEventListener('abort', this);
    }
  }

  /** The caller's signal fired: cut the attempt in flight. */
  handleEvent(): void {
    this.#attempt?.abort(this.#callerSignal?.reason);
  }

  /** The attempt timer fired. */
  timeOut(): void {
    this.#timedOut = true;
    this.#attempt?.abort();
  }

  /**
   * The client is closing without waiting for this call: whatever it is doing (in flight, in a
   * retry wait, in the limiter's queue) ends with a ClientClosedError. Waits are rejected by the
   * client closing its Sleepers and limiter, or through `signal` for a limiter it does not own;
   * the attempt in flight is aborted here.
   */
  cut(why: string, nothingSent: boolean): void {
    if (this.#closed) return;
    this.#closed = endError({ reason: 'client_cut', route: this.#route, why, inFlight: this.#attempt !== undefined, nothingSent });
    this.#attempt?.abort();
    this.#cutController?.abort(this.#closed);
  }

  /** The client cut this call. */
  get isCut(): boolean {
    return this.#closed !== undefined;
  }

  /** Throws the cut's error once the client cut the call: no token, no slot, no send after it. */
  throwIfCut(): void {
    if (this.#closed) throw this.#closed;
  }

  /** The error a failure becomes once the call was cut: a rejected wait or aborted attempt is reported as the closing. */
  orClosed(error: unknown): unknown {
    return this.#closed ?? error;
  }

  /** Waits `ms` unless the caller aborts or the client closes its sleepers; a cut call reports the cut. */
  sleep(sleepers: Sleepers, ms: number): Promise<void> {
    return sleepers.sleep(ms, this.#callerSignal).catch((failure: unknown) => Promise.reject(this.orClosed(failure)));
  }

  /** A limiter admission is waited for; a cut call reports the cut whatever the limiter rejected with. */
  admission(wait: Promise<void>): Promise<void> {
    return wait.catch((failure: unknown) => Promise.reject(this.orClosed(failure)));
  }

  /** Whether a wait of `delayMs` from now ends before the deadline; a wait that would not is never started. */
  endsInTime(delayMs: number): boolean {
    return monotonicNow() + delayMs < this.#deadlineAt;
  }

  /** The call's deadline has come. */
  pastDeadline(): boolean {
    return monotonicNow() >= this.#deadlineAt;
  }

  /** The call left the limiter at `now`: its deadline starts on the first admission. */
  admitted(now: number): void {
    if (this.#deadlineAt === 0) this.#deadlineAt = now + this.#budgetMs;
  }

  /**
   * Before an attempt at `now`: throws, before anything is sent, when the call was cut or its
   * deadline passed; else the attempt's timeout is `timeoutMs` cut to what is left of the deadline.
   */
  checkAttempt(now: number): void {
    this.throwIfCut();
    const timeoutMs = Math.min(this.timeoutMs, this.#deadlineAt - now);
    if (timeoutMs <= 0) throw endError({ reason: 'deadline', route: this.#route, timeoutMs: this.timeoutMs });
    this.#attemptTimeoutMs = timeoutMs;
  }

  /** The attempt leaves: its signal, cut by the caller, the client or its timer, which starts now. */
  beginAttempt(): AttemptSignal {
    const attempt = new AttemptSignal();
    this.#attempt = attempt;
    this.#timedOut = false;
    this.#timer = setTimeout(onAttemptTimeout, Math.min(this.#attemptTimeoutMs, MAX_TIMER_MS), this);
    return attempt;
  }

  /** The attempt is over, however it ended: its timer is cleared. */
  endAttempt(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#attempt = undefined;
  }

  /**
   * Why the attempt's exchange failed, as the call reports it: the caller's abort, the client's
   * cut, an error the wire already typed, the attempt timer, else a failed connection.
   */
  attemptFailure(error: unknown, sends: number, origin: string, scrubber: Scrubber): unknown {
    if (this.#callerSignal?.aborted) return this.#callerSignal.reason;
    if (this.#closed !== undefined) return this.#closed;
    if (error instanceof PartnerError) return error;
    if (this.#timedOut) return this.#attemptTimedOut(this.#attemptTimeoutMs, sends);
    return toConnectionError(error, origin, scrubber);
  }

  /** Names the route, the attempts made so far and the per-attempt timeout; built only on failure. */
  #attemptTimedOut(timeoutMs: number, sends: number): TimeoutError {
    const cut = timeoutMs < this.timeoutMs ? ` (the last cut to ${timeoutMs} ms by the call's deadline)` : '';
    return new TimeoutError(
      `${this.#route} timed out after ${sends} ${sends === 1 ? 'attempt' : 'attempts'} of ${this.timeoutMs} ms each${cut}`,
      timeoutMs,
    );
  }

  /** The deadline came while an earlier attempt with the call's Idempotency-Key was still being processed. */
  originalStillInFlight(): TimeoutError {
    return endError({ reason: 'original_in_flight', route: this.#route, timeoutMs: this.timeoutMs });
  }

  /**
   * Admission: the caller's signal, for the limiter. A limiter the client does not own is not
   * closed with it: the signal then also fires when the client cuts this call.
   */
  get signal(): AbortSignal | undefined {
    if (this.#ownsLimiter) return this.#callerSignal;
    if (this.#admissionSignal) return this.#admissionSignal;
    const cut = (this.#cutController ??= new AbortController()).signal;
    this.#admissionSignal = this.#callerSignal ? AbortSignal.any([this.#callerSignal, cut]) : cut;
    return this.#admissionSignal;
  }

  /**
   * Admission: how long this call may wait for the limiter. Once sent, its deadline; before
   * the first admission, the same budget counted from the first wait, so pacing behind our own
   * limiter is allowed but no server-imposed pause can hold the call for ever.
   */
  get waitDeadline(): number {
    if (this.#deadlineAt !== 0) return this.#deadlineAt;
    if (this.#queueDeadline === 0) this.#queueDeadline = monotonicNow() + this.#budgetMs;
    return this.#queueDeadline;
  }

  /** Admission: the error of a limiter wait that would outlast the deadline; nothing was sent. */
  expired(waitMs: number | undefined): TimeoutError {
    return endError({ reason: 'rate_limit_wait_past_deadline', route: this.#route, timeoutMs: this.timeoutMs, waitMs });
  }
}
