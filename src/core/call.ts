import { TOKEN_PATH, type TokenManager } from './auth.js';
import { type CallEndReason, endOf } from './call-end.js';
import { CallLifetime } from './call-lifetime.js';
import { unwrap } from './envelope.js';
import { checkRequestOptions } from './config.js';
import { IN_FLIGHT_FIRST_WAIT_MS, IN_FLIGHT_MAX_WAIT_MS } from './defaults.js';
import { ClientClosedError, ConnectionError, PartnerError, RateLimitError, RequestValidationError } from './errors.js';
import { responseInfo, serializeQuery } from './headers.js';
import type { LevelLogger } from './logger.js';
import type { CallObservation, CallObserver, WaitReason } from './observer.js';
import type { RateLimiter } from './rate-limit.js';
import { type Scrubber, redactHeaders } from './redact.js';
import type { ApiResult, RequestSpec } from './request.js';
import { retryDelayMs, withRetries } from './retry.js';
import { type Sleepers, monotonicNow } from './sleep.js';
import { urlParsingAltersPath } from './validate.js';
import type { Wire, WireResponse } from './wire.js';
import type { Middleware } from './middleware.js';
import { type ChainCall, sendThroughChain } from './middleware-attempt.js';
import type { Logger } from './options.js';
import { WritePolicy, markMayHaveSucceeded } from './write-policy.js';

/** What every call of one client's transport shares: resolved once, on the first call. */
export interface TransportContext {
  origin: string;
  basePath: string;
  wire: Wire;
  /** The wire parses the URL (a fetch wire): '.'/'..' segments, even as %2E, would be resolved away. */
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
  /** The transport's one seam for instrumentation; read when each call starts. */
  observer: CallObserver | undefined;
  /** The client's middleware, run around every attempt; undefined when it has none. */
  middleware: readonly Middleware[] | undefined;
  /** The client's logger as a middleware sees it. */
  middlewareLogger: Logger;
  /** The largest answer body read, from a middleware's Response as from the wire. */
  maxResponseBytes: number;
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

/**
 * One call from first attempt to result: the attempt loop. Its life reads top to bottom: input
 * checks (constructor) → per attempt: token → limiter → wire → envelope, with one
 * re-authentication on 401 inside the attempt (`attempt`) → the retry decision and its wait
 * (`beforeRetry`), driven by `withRetries` (`run`). Its time (signal, timeouts, deadline, the
 * client's cut) is the call's `CallLifetime`; what may be retried and what a failed write's error
 * says, its `WritePolicy`; why it ended, one name of call-end.ts (`#endReason`), which the
 * observer receives. Every step reports to the transport's observer, when there is one.
 */
export class Call<T> implements ChainCall {
  readonly #context: TransportContext;
  readonly #spec: RequestSpec<T>;
  readonly #headers: Record<string, string>;
  readonly #body: string | undefined;
  readonly #path: string;
  readonly #maxRetries: number;
  readonly #lifetime: CallLifetime;
  readonly #writes: WritePolicy;
  #sends = 0;
  #tokenFailed = false;
  /** What observes this call (tracing, metrics), when the transport has an observer. */
  readonly #observation: CallObservation | undefined;
  /** The status of the last answer read, for the observer. */
  #lastStatus: number | undefined;
  /** The client's middleware, then the call's; undefined when there is none (the path without them). */
  readonly #middleware: readonly Middleware[] | undefined;
  /** An error a middleware threw of its own: the call ends with it, unretried. */
  #middlewareFailure: unknown;
  /** Why `beforeRetry` gave up, when it did: the call ends on that decision. */
  #gaveUp: CallEndReason | undefined;

  constructor(context: TransportContext, spec: RequestSpec<T>, retrySafe?: boolean) {
    const options = spec.options;
    if (options) checkRequestOptions(options, spec.route);
    this.#context = context;
    this.#spec = spec;
    this.#maxRetries = options?.maxRetries ?? context.maxRetries;
    this.#path = context.basePath + spec.path + serializeQuery(spec.query);
    if (context.parsesUrls && urlParsingAltersPath(this.#path)) {
      throw new RequestValidationError(
        [
          {
            path: 'path',
            message:
              "has a '.' or '..' segment (%2E), which fetch cannot send unchanged (its URL parsing resolves it); send it without the fetch option",
          },
        ],
        spec.route,
      );
    }
    const headers: Record<string, string> = { ...context.baseHeaders };
    if (options?.headers) for (const name in options.headers) headers[name.toLowerCase()] = options.headers[name] as string;
    if (spec.body !== undefined) {
      this.#body = serializeBody(spec.body, spec.route);
      headers['content-type'] = 'application/json';
    }
    const writes = new WritePolicy(spec, retrySafe);
    // One key for the whole call: every retry and the 401 replay (spec part 8 rule 4).
    if (writes.idempotencyKey !== undefined) headers['idempotency-key'] = writes.idempotencyKey;
    this.#headers = headers;
    this.#writes = writes;
    const own = options?.middleware;
    this.#middleware = own?.length ? [...(context.middleware ?? []), ...own] : context.middleware;
    this.#lifetime = new CallLifetime(spec.route, options?.signal, options?.timeoutMs ?? context.timeoutMs, this.#maxRetries, context.ownsLimiter);
    const observer = context.observer;
    this.#observation = observer?.enabled
      ? observer.start({
          kind: spec.route === TOKEN_ROUTE ? 'token' : 'api',
          method: spec.method,
          route: spec.route,
          rawPath: spec.rawPath === true,
          origin: context.origin,
          idempotencyKey: writes.idempotencyKey !== undefined,
        })
      : undefined;
  }

  run(): Promise<ApiResult<T>> {
    const observation = this.#observation;
    if (observation === undefined) return this.#writes.settle(this.#retried());
    const result = this.#writes.settle(observation.within ? observation.within(() => this.#retried()) : this.#retried());
    result.then(
      (done) => this.#observed(observation, undefined, done),
      (error: unknown) => this.#observed(observation, error, undefined),
    );
    return result;
  }

  /** Every attempt and retry, under the caller's signal. */
  #retried(): Promise<ApiResult<T>> {
    return this.#lifetime.guard(() => withRetries(this, this.#maxRetries));
  }

  #observed(observation: CallObservation, error: unknown, result: ApiResult<T> | undefined): void {
    observation.end({
      reason: result ? 'answered' : this.#endReason(error),
      error,
      status: result ? result.response.status : this.#lastStatus,
      attempts: this.#sends,
      replayed: result?.response.idempotencyReplayed ?? false,
      validated: this.#context.validate || this.#spec.alwaysValidate === true,
    });
  }

  /** Reports a wait to the observer around `wait`; without an observer, `wait` itself. */
  #waiting<R>(reason: WaitReason, ms: number | undefined, wait: Promise<R>): Promise<R> {
    const observation = this.#observation;
    if (observation === undefined) return wait;
    observation.wait(reason, ms);
    return wait.finally(() => observation.waitEnd(reason));
  }

  /** The client is closing without waiting for this call (see `CallLifetime.cut`). */
  cut(why: string): void {
    this.#lifetime.cut(why, this.#sends === 0);
  }

  async attempt(): Promise<ApiResult<T>> {
    const context = this.#context;
    const spec = this.#spec;
    const lifetime = this.#lifetime;
    let replayed = false;
    let inFlightWaits = 0;
    for (;;) {
      // Cut between two steps (a 401 replay, an in-flight wait): no token, no slot, no send.
      lifetime.throwIfCut();
      // The token comes first: the exchange itself passes the account gate, so it must not
      // wait behind a slot this call already holds.
      let token: string | undefined;
      if (spec.auth) {
        token = context.tokens.current() ?? (await this.#fetchToken());
        this.#headers['authorization'] = `Bearer ${token}`;
      }
      const limiter = context.limiter;
      if (limiter) {
        const admitted = limiter.acquire(spec.route, lifetime);
        if (admitted) await this.#waiting('rate-limit', undefined, lifetime.admission(admitted));
      }
      const sentAt = monotonicNow();
      lifetime.admitted(sentAt);
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
        context.tokens.invalidate(token);
        context.logger.log('info', 'token refused; re-authenticating once', { route: spec.route });
        continue;
      }
      try {
        const result = unwrap(response.body, info, spec, context.validate || spec.alwaysValidate === true, context.scrubber);
        this.#observation?.attemptEnd(this.#sends, { status: response.status, error: undefined });
        return result;
      } catch (error) {
        this.#observation?.attemptEnd(this.#sends, { status: response.status, error });
        if (error instanceof RateLimitError && context.limiter) {
          // A 429 holds the whole endpoint, not only this call (spec part 8 rules 1 and 3);
          // the limiter refuses calls meeting more than maxServerWaitMs of it.
          context.limiter.pause(spec.route, (error.retryAfterSeconds ?? 1) * 1000);
        }
        if (this.#writes.awaitsOriginal(error, this.#sends)) {
          // Asked again with the same key until the original's answer is replayed, within the deadline.
          await this.#waitForOriginal(inFlightWaits++);
          continue;
        }
        throw error;
      }
    }
  }

  async #waitForOriginal(waits: number): Promise<void> {
    const lifetime = this.#lifetime;
    const delayMs = Math.min(IN_FLIGHT_FIRST_WAIT_MS * 2 ** waits, IN_FLIGHT_MAX_WAIT_MS);
    if (!lifetime.endsInTime(delayMs)) throw this.#originalStillInFlight();
    this.#context.logger.log('info', `${this.#spec.route}: the original request is still in progress; asking again`, {
      route: this.#spec.route,
    });
    await this.#waiting('in-flight-original', delayMs, lifetime.sleep(this.#context.sleepers, delayMs));
    if (lifetime.pastDeadline()) throw this.#originalStillInFlight();
  }

  #originalStillInFlight(): PartnerError {
    const error = this.#lifetime.originalStillInFlight();
    // The original may yet complete: whatever covers this write, its outcome is unknown. Sent
    // again with its key, it is replayed once the original is done, never applied twice.
    markMayHaveSucceeded(error, this.#writes.idempotencyKey);
    return error;
  }

  /** The exchange retries on its own; its failure is final for this call, or retries would multiply. */
  async #fetchToken(): Promise<string> {
    try {
      return await this.#context.tokens.fetch(this.#lifetime.callerSignal);
    } catch (error) {
      this.#tokenFailed = true;
      throw this.#lifetime.orClosed(error);
    }
  }

  /** Why a failure ends the call whatever retries are left; undefined when it may be tried again. */
  #final(error: unknown): CallEndReason | undefined {
    if (this.#lifetime.aborted) return 'aborted';
    if (this.#tokenFailed) return 'token_failed';
    if (error === this.#middlewareFailure) return 'middleware_error';
    if (!this.#writes.mayRetry(error)) return endOf(error) ?? 'not_retryable';
    return undefined;
  }

  /** Why the call rejected with `error`: the one answer, read by the observer. */
  #endReason(error: unknown): CallEndReason {
    if (this.#lifetime.aborted) return 'aborted';
    if (this.#lifetime.isCut) return 'client_cut';
    // Else the last attempt's failure ended it: no retry was allowed, or none was left.
    return this.#gaveUp ?? this.#final(error) ?? endOf(error) ?? 'retries_exhausted';
  }

  /** Gives up on a retry: the call ends with the attempt's error, for `reason`. */
  #giveUp(reason: CallEndReason): false {
    this.#gaveUp = reason;
    return false;
  }

  async beforeRetry(error: unknown, retryIndex: number): Promise<boolean> {
    const lifetime = this.#lifetime;
    lifetime.throwIfCut();
    const final = this.#final(error);
    if (final !== undefined) return this.#giveUp(final);
    // undefined: the server asked for more than maxServerWaitMs; the call fails with its answer.
    const delayMs = retryDelayMs(error, retryIndex, this.#context.maxServerWaitMs);
    if (delayMs === undefined) return this.#giveUp('server_wait_too_long');
    if (!lifetime.endsInTime(delayMs)) return this.#giveUp(endOf(error) ?? 'retry_past_deadline');
    const logger = this.#context.logger;
    if (logger.enabled('warn')) {
      logger.log('warn', `retrying ${this.#spec.route} in ${Math.round(delayMs)} ms`, {
        route: this.#spec.route,
        retry: retryIndex + 1,
        maxRetries: this.#maxRetries,
        reason: error instanceof PartnerError ? error.toJSON() : String(error),
      });
    }
    await this.#waiting('retry', delayMs, lifetime.sleep(this.#context.sleepers, delayMs));
    return true;
  }

  async #send(now: number): Promise<WireResponse> {
    const context = this.#context;
    const lifetime = this.#lifetime;
    lifetime.checkAttempt(now);
    if (context.logger.enabled('debug')) {
      context.logger.log('debug', `${this.#spec.method} ${this.#path}`, {
        route: this.#spec.route,
        headers: redactHeaders(this.#headers),
      });
    }
    this.#sends++;
    this.#observation?.attempt(this.#sends, this.#headers);
    const signal = lifetime.beginAttempt();
    const request = { method: this.#spec.method, origin: context.origin, path: this.#path, headers: this.#headers, body: this.#body, signal };
    try {
      return await (this.#middleware === undefined
        ? context.wire.send(request)
        : sendThroughChain(this.#middleware, context, this, this.#spec, this.#writes.idempotencyKey, request, this.#sends));
    } catch (error) {
      if (error === this.#middlewareFailure) throw error;
      throw lifetime.attemptFailure(error, this.#sends, context.origin, context.scrubber);
    } finally {
      lifetime.endAttempt();
    }
  }

  /** The typed error of a failed exchange through the call's middleware. */
  exchangeFailure(error: unknown, origin: string): unknown {
    return this.#lifetime.attemptFailure(error, this.#sends, origin, this.#context.scrubber);
  }

  /** A middleware threw an error of its own: the call ends with it, unretried. */
  middlewareFailed(error: unknown): void {
    this.#middlewareFailure = error;
  }
}
