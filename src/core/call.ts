import { TOKEN_PATH, type TokenManager } from './auth.js';
import { unwrap } from './envelope.js';
import { checkRequestOptions } from './config.js';
import { DEADLINE_SLACK_MS, IN_FLIGHT_FIRST_WAIT_MS, IN_FLIGHT_MAX_WAIT_MS } from './defaults.js';
import {
  ApiError,
  ClientClosedError,
  ConflictError,
  ConnectionError,
  InvalidResponseError,
  PartnerError,
  RateLimitError,
  RequestValidationError,
  TimeoutError,
} from './errors.js';
import { responseInfo, serializeQuery } from './headers.js';
import type { LevelLogger } from './logger.js';
import type { CallObservation, CallObserver, WaitReason } from './observer.js';
import type { RateLimiter } from './rate-limit.js';
import { type Scrubber, redactHeaders } from './redact.js';
import type { ApiResult, RequestSpec } from './request.js';
import { allowSharedSignal } from './runtime.js';
import { isRetryable, retryDelayMs, withRetries } from './retry.js';
import { MAX_TIMER_MS, type Sleepers, monotonicNow } from './sleep.js';
import { urlParsingAltersPath } from './validate.js';
import type { Admission } from './window-gate.js';
import { AttemptSignal, type Wire, type WireResponse, toConnectionError } from './wire.js';

/** What every call of one client shares; built once, on the first call. */
export interface Pipeline {
  origin: string;
  basePath: string;
  wire: Wire;
  /** The wire parses the URL (the fetch transport): '.'/'..' segments, even as %2E, would be resolved away. */
  parsesUrls: boolean;
  limiter: RateLimiter | undefined;
  /**
   * The client built the limiter and closes it; a limiter given as an option may be shared with
   * other clients: it is never closed, and a cut call leaves its wait through its admission signal.
   */
  ownsLimiter: boolean;
  tokens: TokenManager;
  timeoutMs: number;
  maxRetries: number;
  validate: boolean;
  /** User-Agent, Accept and the client's default headers, lower-cased: each call starts from a copy. */
  baseHeaders: Record<string, string>;
  logger: LevelLogger;
  scrubber: Scrubber;
  /** Every retry wait of the client: `close()` cancels them at once instead of leaving timers. */
  sleepers: Sleepers;
  /** The ceiling on a wait the server asks for (Retry-After); longer ones are not waited. */
  maxServerWaitMs: number;
  /** The pipeline's one seam for instrumentation; read when each call starts. */
  observer: CallObserver | undefined;
}

function serializeBody(body: unknown, route: string): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    // A BigInt or a cycle: refuse before anything is sent.
    throw new RequestValidationError([{ path: 'body', message: error instanceof Error ? error.message : 'not serialisable as JSON' }], route);
  }
}

/** The token exchange's route: the call the client makes on its own. */
const TOKEN_ROUTE = `POST ${TOKEN_PATH}`;

/** A failure that proves the request never left: its rate-limit slot was not used. */
function isUnsent(error: unknown): boolean {
  return (error instanceof ConnectionError || error instanceof ClientClosedError) && error.requestNotSent;
}

function onAttemptTimeout(call: Call<unknown>): void {
  call.timeOut();
}

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
function markMayHaveSucceeded(error: ConnectionError | ApiError | ClientClosedError, key?: string): void {
  if (error.mayHaveSucceeded) return;
  // The field is read-only to callers; the pipeline sets it once, on the call's final error.
  (error as { mayHaveSucceeded: boolean }).mayHaveSucceeded = true;
  if (key !== undefined) (error as { idempotencyKey: string | undefined }).idempotencyKey = key;
  error.message += key
    ? ` (the write may have been applied: send it again with idempotencyKey '${key}' to apply it at most once)`
    : ' (the write may have been applied: check its state before sending it again)';
}

/**
 * The final failure of a write: when the request may have been processed (not provably unsent,
 * a 5xx, a 2xx whose body was unreadable), its outcome is unknown, and the error says so. A
 * write retried under an Idempotency-Key (one the spec promises, or the caller's own) also names
 * the key, which the caller may never have seen: sending the write again with it replays the
 * original if it was applied instead of applying it twice.
 */
function markIfMaybeApplied(error: unknown, key?: string): never {
  if (error instanceof ConnectionError || error instanceof ClientClosedError) {
    if (!error.requestNotSent) markMayHaveSucceeded(error, key);
  } else if (error instanceof ApiError && (error.status >= 500 || (error instanceof InvalidResponseError && error.status < 300))) {
    markMayHaveSucceeded(error, key);
  }
  throw error;
}

/**
 * One call from first attempt to result. Its life reads top to bottom: input checks
 * (constructor) → per attempt: token → limiter → wire → envelope, with one re-authentication on
 * 401 inside the attempt (`attempt`) → the retry decision and its wait (`beforeRetry`), driven
 * by `withRetries` (`run`). Every step reports to the pipeline's observer, when there is one.
 */
export class Call<T> implements Admission {
  readonly #pipeline: Pipeline;
  readonly #spec: RequestSpec<T>;
  readonly #signal: AbortSignal | undefined;
  readonly #headers: Record<string, string>;
  readonly #body: string | undefined;
  readonly #path: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retrySafe: boolean;
  /** A write no idempotency promise covers: never retried once it may have reached the server. */
  readonly #unsafeWrite: boolean;
  /** A retried write's Idempotency-Key (the spec promises it, or it is the caller's): named if all attempts fail. */
  readonly #settlingKey: string | undefined;
  readonly #keyed: boolean;
  #sends = 0;
  #deadlineAt = 0;
  #controller: AttemptSignal | undefined;
  #timedOut = false;
  #tokenFailed = false;
  /** The deadline of a wait for the first admission, set when the limiter first makes this call wait. */
  #queueDeadline = 0;
  /** Set when the client cut this call (`destroy()`, or `close()` past its timeout): the call's final error. */
  #closed: ClientClosedError | undefined;
  /** What observes this call (tracing, metrics), when the pipeline has an observer. */
  readonly #observation: CallObservation | undefined;
  /** Aborted by `cut()`: ends a wait in a limiter the client does not own (see `signal`). */
  #cutController: AbortController | undefined;
  /** The caller's signal joined with the cut, built once per call for a limiter the client does not own. */
  #admissionSignal: AbortSignal | undefined;
  /** The status of the last answer read, for the observer. */
  #lastStatus: number | undefined;

  constructor(pipeline: Pipeline, spec: RequestSpec<T>, retrySafe?: boolean) {
    const options = spec.options;
    if (options) checkRequestOptions(options, spec.route);
    this.#pipeline = pipeline;
    this.#spec = spec;
    this.#signal = options?.signal;
    this.#timeoutMs = options?.timeoutMs ?? pipeline.timeoutMs;
    this.#maxRetries = options?.maxRetries ?? pipeline.maxRetries;
    this.#path = pipeline.basePath + spec.path + serializeQuery(spec.query);
    if (pipeline.parsesUrls && urlParsingAltersPath(this.#path)) {
      throw new RequestValidationError(
        [{ path: 'path', message: "has a '.' or '..' segment (%2E), which the fetch transport cannot send unchanged; use the default transport" }],
        spec.route,
      );
    }
    const headers: Record<string, string> = { ...pipeline.baseHeaders };
    if (options?.headers) for (const name in options.headers) headers[name.toLowerCase()] = options.headers[name] as string;
    if (spec.body !== undefined) {
      this.#body = serializeBody(spec.body, spec.route);
      headers['content-type'] = 'application/json';
    }
    const callerKey = options?.idempotencyKey;
    const idempotencyKey = callerKey ?? (spec.idempotent || spec.generateIdempotencyKey ? globalThis.crypto.randomUUID() : undefined);
    // One key for the whole call: every retry and the 401 replay (spec part 8 rule 4).
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    this.#headers = headers;
    this.#keyed = idempotencyKey !== undefined;
    // Retried after a failure that may have reached the server only where idempotency is
    // promised: a read, a route the spec marks (idem), or the caller's own key (its assertion).
    this.#retrySafe = retrySafe ?? (spec.method === 'GET' || spec.idempotent || callerKey !== undefined);
    this.#unsafeWrite = !this.#retrySafe;
    this.#settlingKey = retrySafe === undefined && spec.method !== 'GET' ? idempotencyKey : undefined;
    const observer = pipeline.observer;
    this.#observation = observer?.enabled
      ? observer.start({
          kind: spec.route === TOKEN_ROUTE ? 'token' : 'api',
          method: spec.method,
          route: spec.route,
          rawPath: spec.rawPath === true,
          origin: pipeline.origin,
          idempotencyKey: this.#keyed,
        })
      : undefined;
  }

  run(): Promise<ApiResult<T>> {
    const observation = this.#observation;
    if (observation === undefined) return this.#settle(this.#retried());
    const result = this.#settle(observation.within ? observation.within(() => this.#retried()) : this.#retried());
    result.then(
      (done) => this.#observed(observation, undefined, done),
      (error: unknown) => this.#observed(observation, error, undefined),
    );
    return result;
  }

  /** Every attempt and retry: without a caller's signal there is nothing to listen to, so no extra async frame. */
  #retried(): Promise<ApiResult<T>> {
    const signal = this.#signal;
    return signal ? this.#runWith(signal) : withRetries(this, this.#maxRetries);
  }

  /** The final error of a write whose outcome is unknown says so (see markIfMaybeApplied). */
  #settle(result: Promise<ApiResult<T>>): Promise<ApiResult<T>> {
    if (this.#unsafeWrite) return result.catch(markIfMaybeApplied);
    const key = this.#settlingKey;
    return key === undefined ? result : result.catch((error: unknown) => markIfMaybeApplied(error, key));
  }

  #observed(observation: CallObservation, error: unknown, result: ApiResult<T> | undefined): void {
    observation.end({
      error,
      status: result ? result.response.status : this.#lastStatus,
      attempts: this.#sends,
      replayed: result?.response.idempotencyReplayed ?? false,
      validated: this.#pipeline.validate || this.#spec.alwaysValidate === true,
    });
  }

  /** Reports a wait to the observer around `wait`; without an observer, `wait` itself. */
  #waiting<R>(reason: WaitReason, ms: number | undefined, wait: Promise<R>): Promise<R> {
    const observation = this.#observation;
    if (observation === undefined) return wait;
    observation.wait(reason, ms);
    return wait.finally(() => observation.waitEnd(reason));
  }

  async #runWith(signal: AbortSignal): Promise<ApiResult<T>> {
    signal.throwIfAborted();
    allowSharedSignal(signal);
    signal.addEventListener('abort', this);
    try {
      return await withRetries(this, this.#maxRetries);
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
    this.#controller?.abort(this.#signal?.reason);
  }

  timeOut(): void {
    this.#timedOut = true;
    this.#controller?.abort();
  }

  /**
   * The client is closing without waiting for this call: whatever it is doing (in flight, in a
   * retry wait, in the limiter's queue) ends with a ClientClosedError. Waits are rejected by the
   * client closing its Sleepers and limiter; the attempt in flight is aborted here.
   */
  cut(why: string): void {
    if (this.#closed) return;
    const inFlight = this.#controller !== undefined;
    this.#closed = new ClientClosedError(`${this.#spec.route}: ${why} ${inFlight ? 'while its request was in flight' : 'before the call finished'}`, {
      requestNotSent: this.#sends === 0,
    });
    this.#controller?.abort();
    this.#cutController?.abort(this.#closed);
  }

  /** The error a failure becomes once the call was cut: a rejected wait or aborted attempt is reported as the closing. */
  #orClosed(error: unknown): unknown {
    return this.#closed ?? error;
  }

  async attempt(): Promise<ApiResult<T>> {
    const pipeline = this.#pipeline;
    const spec = this.#spec;
    let replayed = false;
    let inFlightWaits = 0;
    for (;;) {
      // Cut between two steps (a 401 replay, an in-flight wait): no token, no slot, no send.
      if (this.#closed) throw this.#closed;
      // The token comes first: the exchange itself passes the account gate, so it must not
      // wait behind a slot this call already holds.
      let token: string | undefined;
      if (spec.auth) {
        token = pipeline.tokens.current() ?? (await this.#fetchToken());
        this.#headers['authorization'] = `Bearer ${token}`;
      }
      const limiter = pipeline.limiter;
      if (limiter) {
        const admitted = limiter.acquire(spec.route, this);
        if (admitted) await this.#waiting('rate-limit', undefined, admitted).catch((error: unknown) => Promise.reject(this.#orClosed(error)));
      }
      const sentAt = monotonicNow();
      // The deadline runs from the first admission: queueing behind our own limiter is pacing, not a retry.
      if (this.#deadlineAt === 0) this.#deadlineAt = sentAt + this.#budgetMs();
      let response: WireResponse;
      try {
        response = await this.#send(sentAt);
      } catch (error) {
        if (limiter) {
          // A request that provably never left gives its slot back: no server window counted it.
          if (limiter.giveBack && isUnsent(error)) limiter.giveBack(spec.route);
          else limiter.release(spec.route, sentAt, undefined);
        }
        this.#observation?.attemptEnd(this.#sends, { status: undefined, error });
        throw error;
      }
      const info = responseInfo(response.status, response.headers);
      limiter?.release(spec.route, sentAt, info.rateLimit);
      this.#lastStatus = response.status;
      if (response.status === 401 && spec.auth && !replayed) {
        // spec part 5 rule 3: re-authenticate once and replay once.
        this.#observation?.attemptEnd(this.#sends, { status: 401, error: undefined });
        replayed = true;
        pipeline.tokens.invalidate(token);
        pipeline.logger.log('info', 'token refused; re-authenticating once', { route: spec.route });
        continue;
      }
      try {
        const result = unwrap(response.body, info, spec, pipeline.validate || spec.alwaysValidate === true, pipeline.scrubber);
        this.#observation?.attemptEnd(this.#sends, { status: response.status, error: undefined });
        return result;
      } catch (error) {
        this.#observation?.attemptEnd(this.#sends, { status: response.status, error });
        if (error instanceof RateLimitError && pipeline.limiter) {
          // A 429 holds the whole endpoint, not only this call (spec part 8 rules 1 and 3);
          // the limiter caps the pause at maxServerWaitMs.
          pipeline.limiter.pause(spec.route, (error.retryAfterSeconds ?? 1) * 1000);
        }
        if (this.#keyed && this.#sends > 1 && isInFlightReplay(error)) {
          // Our own earlier attempt is still being processed: ask again with the same key until
          // its answer is replayed, within the call's deadline. Not a retry: it cannot duplicate.
          await this.#waitForOriginal(inFlightWaits++);
          continue;
        }
        throw error;
      }
    }
  }

  async #waitForOriginal(waits: number): Promise<void> {
    const delayMs = Math.min(IN_FLIGHT_FIRST_WAIT_MS * 2 ** waits, IN_FLIGHT_MAX_WAIT_MS);
    if (monotonicNow() + delayMs >= this.#deadlineAt) throw this.#originalStillInFlight();
    this.#pipeline.logger.log('info', `${this.#spec.route}: the original request is still in progress; asking again`, {
      route: this.#spec.route,
    });
    await this.#waiting('in-flight-original', delayMs, this.#pipeline.sleepers.sleep(delayMs, this.#signal)).catch((failure: unknown) =>
      Promise.reject(this.#orClosed(failure)),
    );
    if (monotonicNow() >= this.#deadlineAt) throw this.#originalStillInFlight();
  }

  #originalStillInFlight(): TimeoutError {
    const error = new TimeoutError(
      `${this.#spec.route}: an earlier attempt with this Idempotency-Key was still in progress on the server when the call's deadline came`,
      this.#timeoutMs,
    );
    // The original may yet complete: whatever covers this write, its outcome is unknown.
    markMayHaveSucceeded(error);
    return error;
  }

  /** The exchange retries on its own; its failure is final for this call, or retries would multiply. */
  async #fetchToken(): Promise<string> {
    try {
      return await this.#pipeline.tokens.fetch(this.#signal);
    } catch (error) {
      this.#tokenFailed = true;
      throw this.#orClosed(error);
    }
  }

  async beforeRetry(error: unknown, retryIndex: number): Promise<boolean> {
    if (this.#closed) throw this.#closed;
    if (this.#signal?.aborted || this.#tokenFailed || !isRetryable(error, this.#retrySafe)) return false;
    // undefined: the server asked for more than maxServerWaitMs; the call fails with its answer.
    const delayMs = retryDelayMs(error, retryIndex, this.#pipeline.maxServerWaitMs);
    if (delayMs === undefined || monotonicNow() + delayMs >= this.#deadlineAt) return false;
    const logger = this.#pipeline.logger;
    if (logger.enabled('warn')) {
      logger.log('warn', `retrying ${this.#spec.route} in ${Math.round(delayMs)} ms`, {
        route: this.#spec.route,
        retry: retryIndex + 1,
        maxRetries: this.#maxRetries,
        reason: error instanceof PartnerError ? error.toJSON() : String(error),
      });
    }
    await this.#waiting('retry', delayMs, this.#pipeline.sleepers.sleep(delayMs, this.#signal)).catch((failure: unknown) =>
      Promise.reject(this.#orClosed(failure)),
    );
    return true;
  }

  /**
   * Admission: the caller's signal, for the limiter. A limiter the client does not own is not
   * closed with it: the signal then also fires when the client cuts this call.
   */
  get signal(): AbortSignal | undefined {
    if (this.#pipeline.ownsLimiter) return this.#signal;
    if (this.#admissionSignal) return this.#admissionSignal;
    const cut = (this.#cutController ??= new AbortController()).signal;
    this.#admissionSignal = this.#signal ? AbortSignal.any([this.#signal, cut]) : cut;
    return this.#admissionSignal;
  }

  /**
   * Admission: how long this call may wait for the limiter. Once sent, its deadline; before
   * the first admission, the same budget counted from the first wait, so pacing behind our own
   * limiter is allowed but no server-imposed pause can hold the call for ever.
   */
  get waitDeadline(): number {
    if (this.#deadlineAt !== 0) return this.#deadlineAt;
    if (this.#queueDeadline === 0) this.#queueDeadline = monotonicNow() + this.#budgetMs();
    return this.#queueDeadline;
  }

  /** Admission: the error of a limiter wait that would outlast the deadline; nothing was sent. */
  expired(waitMs: number | undefined): TimeoutError {
    const wait = waitMs === undefined ? '' : ` (${Math.ceil(waitMs)} ms)`;
    return new TimeoutError(`${this.#spec.route}: the rate-limit wait${wait} would end past the call's deadline`, this.#timeoutMs, {
      requestNotSent: true,
    });
  }

  #budgetMs(): number {
    return this.#timeoutMs * (this.#maxRetries + 1) + DEADLINE_SLACK_MS;
  }

  /** Names the route, the attempts made so far and the per-attempt timeout; built only on failure. */
  #attemptTimedOut(timeoutMs: number): TimeoutError {
    const sends = this.#sends;
    const cut = timeoutMs < this.#timeoutMs ? ` (the last cut to ${timeoutMs} ms by the call's deadline)` : '';
    return new TimeoutError(
      `${this.#spec.route} timed out after ${sends} ${sends === 1 ? 'attempt' : 'attempts'} of ${this.#timeoutMs} ms each${cut}`,
      timeoutMs,
    );
  }

  async #send(now: number): Promise<WireResponse> {
    const pipeline = this.#pipeline;
    if (this.#closed) throw this.#closed;
    const timeoutMs = Math.min(this.#timeoutMs, this.#deadlineAt - now);
    // Thrown before sending: this attempt provably never left.
    if (timeoutMs <= 0) throw new TimeoutError(`${this.#spec.route} ran past its deadline`, this.#timeoutMs, { requestNotSent: true });
    if (pipeline.logger.enabled('debug')) {
      pipeline.logger.log('debug', `${this.#spec.method} ${this.#path}`, {
        route: this.#spec.route,
        headers: redactHeaders(this.#headers),
      });
    }
    const controller = new AttemptSignal();
    this.#controller = controller;
    this.#sends++;
    this.#observation?.attempt(this.#sends, this.#headers);
    this.#timedOut = false;
    const timer = setTimeout(onAttemptTimeout, Math.min(timeoutMs, MAX_TIMER_MS), this);
    try {
      return await pipeline.wire.send({
        method: this.#spec.method,
        origin: pipeline.origin,
        path: this.#path,
        headers: this.#headers,
        body: this.#body,
        signal: controller,
      });
    } catch (error) {
      if (this.#signal?.aborted) throw this.#signal.reason;
      // Cut by close() or destroy() while in flight (set by cut(), which the compiler cannot see here).
      if (this.#closed !== undefined) throw this.#orClosed(error);
      if (error instanceof PartnerError) throw error;
      if (this.#timedOut) {
        throw this.#attemptTimedOut(timeoutMs);
      }
      throw toConnectionError(error, pipeline.origin, pipeline.scrubber);
    } finally {
      clearTimeout(timer);
      this.#controller = undefined;
    }
  }
}
