import type { TokenManager } from './auth.js';
import { unwrap } from './envelope.js';
import { PartnerError, RateLimitError, RequestValidationError, TimeoutError } from './errors.js';
import { responseInfo, serializeQuery } from './headers.js';
import type { LevelLogger } from './logger.js';
import type { RateLimiter } from './rate-limit.js';
import { type Scrubber, redactHeaders } from './redact.js';
import type { ApiResult, RequestSpec } from './request.js';
import { isRetryable, retryDelayMs, withRetries } from './retry.js';
import { MAX_TIMER_MS, type Sleepers, monotonicNow } from './sleep.js';
import type { Admission } from './window-gate.js';
import { AttemptSignal, type Wire, type WireResponse, toConnectionError } from './wire.js';

/**
 * Extra time an overall deadline grants beyond `timeoutMs × attempts`: enough for one
 * Retry-After of a 60-second window (spec part 8) plus backoffs. Waits that would end past the
 * deadline are not started; the call fails with the error it has.
 */
export const DEADLINE_SLACK_MS = 60_000;

/** What every call of one client shares; built once, on the first call. */
export interface Pipeline {
  origin: string;
  basePath: string;
  wire: Wire;
  limiter: RateLimiter | undefined;
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
}

function serializeBody(body: unknown, route: string): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    // A BigInt or a cycle: refuse before anything is sent.
    throw new RequestValidationError([{ path: 'body', message: error instanceof Error ? error.message : 'not serialisable as JSON' }], route);
  }
}

function onAttemptTimeout(call: Call<unknown>): void {
  call.timeOut();
}

/**
 * One call from first attempt to result: limiter → token → wire → envelope, with one
 * re-authentication on 401 inside an attempt and retries around attempts.
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
  #deadlineAt = 0;
  #controller: AttemptSignal | undefined;
  #timedOut = false;
  #tokenFailed = false;
  /** The deadline of a wait for the first admission, set when the limiter first makes this call wait. */
  #queueDeadline = 0;

  constructor(pipeline: Pipeline, spec: RequestSpec<T>, retrySafe?: boolean) {
    const options = spec.options;
    this.#pipeline = pipeline;
    this.#spec = spec;
    this.#signal = options?.signal;
    this.#timeoutMs = options?.timeoutMs ?? pipeline.timeoutMs;
    this.#maxRetries = options?.maxRetries ?? pipeline.maxRetries;
    this.#path = pipeline.basePath + spec.path + serializeQuery(spec.query);
    const headers: Record<string, string> = { ...pipeline.baseHeaders };
    if (options?.headers) for (const name in options.headers) headers[name.toLowerCase()] = options.headers[name] as string;
    if (spec.body !== undefined) {
      this.#body = serializeBody(spec.body, spec.route);
      headers['content-type'] = 'application/json';
    }
    const idempotencyKey = options?.idempotencyKey ?? (spec.idempotent ? globalThis.crypto.randomUUID() : undefined);
    // One key for the whole call: every retry and the 401 replay (spec part 8 rule 4).
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    this.#headers = headers;
    this.#retrySafe = retrySafe ?? (spec.method === 'GET' || idempotencyKey !== undefined);
  }

  run(): Promise<ApiResult<T>> {
    // Without a caller's signal there is nothing to listen to: no extra async frame per call.
    const signal = this.#signal;
    return signal ? this.#runWith(signal) : withRetries(this, this.#maxRetries);
  }

  async #runWith(signal: AbortSignal): Promise<ApiResult<T>> {
    signal.throwIfAborted();
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

  async attempt(): Promise<ApiResult<T>> {
    const pipeline = this.#pipeline;
    const spec = this.#spec;
    let replayed = false;
    for (;;) {
      // The token comes first: the exchange itself passes the account gate, so it must not
      // wait behind a slot this call already holds.
      let token: string | undefined;
      if (spec.auth) {
        token = pipeline.tokens.current() ?? (await this.#fetchToken());
        this.#headers['authorization'] = `Bearer ${token}`;
      }
      if (pipeline.limiter) {
        const admitted = pipeline.limiter.acquire(spec.route, this);
        if (admitted) await admitted;
      }
      const sentAt = monotonicNow();
      // The deadline runs from the first admission: queueing behind our own limiter is pacing, not a retry.
      if (this.#deadlineAt === 0) this.#deadlineAt = sentAt + this.#budgetMs();
      let response: WireResponse;
      try {
        response = await this.#send(sentAt);
      } catch (error) {
        pipeline.limiter?.release(spec.route, sentAt, undefined);
        throw error;
      }
      const info = responseInfo(response.status, response.headers);
      pipeline.limiter?.release(spec.route, sentAt, info.rateLimit);
      if (response.status === 401 && spec.auth && !replayed) {
        // spec part 5 rule 3: re-authenticate once and replay once.
        replayed = true;
        pipeline.tokens.invalidate(token);
        pipeline.logger.log('info', 'token refused; re-authenticating once', { route: spec.route });
        continue;
      }
      try {
        return unwrap(response.body, info, spec, pipeline.validate, pipeline.scrubber);
      } catch (error) {
        if (error instanceof RateLimitError && pipeline.limiter) {
          // A 429 holds the whole endpoint, not only this call (spec part 8 rules 1 and 3);
          // the limiter caps the pause at maxServerWaitMs.
          pipeline.limiter.pause(spec.route, (error.retryAfterSeconds ?? 1) * 1000);
        }
        throw error;
      }
    }
  }

  /** The exchange retries on its own; its failure is final for this call, or retries would multiply. */
  async #fetchToken(): Promise<string> {
    try {
      return await this.#pipeline.tokens.fetch(this.#signal);
    } catch (error) {
      this.#tokenFailed = true;
      throw error;
    }
  }

  async beforeRetry(error: unknown, retryIndex: number): Promise<boolean> {
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
    await this.#pipeline.sleepers.sleep(delayMs, this.#signal);
    return true;
  }

  /** Admission: the caller's signal, for the limiter. */
  get signal(): AbortSignal | undefined {
    return this.#signal;
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

  async #send(now: number): Promise<WireResponse> {
    const pipeline = this.#pipeline;
    const timeoutMs = Math.min(this.#timeoutMs, this.#deadlineAt - now);
    if (timeoutMs <= 0) throw new TimeoutError(`${this.#spec.route} ran past its deadline`, this.#timeoutMs);
    if (pipeline.logger.enabled('debug')) {
      pipeline.logger.log('debug', `${this.#spec.method} ${this.#path}`, {
        route: this.#spec.route,
        headers: redactHeaders(this.#headers),
      });
    }
    const controller = new AttemptSignal();
    this.#controller = controller;
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
      if (error instanceof PartnerError) throw error;
      if (this.#timedOut) {
        throw new TimeoutError(`${this.#spec.route} timed out after ${timeoutMs} ms`, timeoutMs);
      }
      throw toConnectionError(error, pipeline.origin, pipeline.scrubber);
    } finally {
      clearTimeout(timer);
      this.#controller = undefined;
    }
  }
}
