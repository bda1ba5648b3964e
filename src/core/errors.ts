/**
 * Every error the SDK throws extends {@link PartnerError}. Answers of the API map to
 * subclasses of {@link ApiError} by HTTP status (spec part 7); everything else has its own
 * class. No error ever carries a credential: messages name the route, the status and the
 * server's own message, scrubbed of every secret the client knows (key, secret, tokens) before
 * the error is built, and `toJSON()` / `util.inspect` show the same safe fields.
 */

import type { ClientErrorCode, ErrorCode } from './error-codes.js';

export type { ClientErrorCode, ErrorCode } from './error-codes.js';

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

/**
 * The base of every error the SDK throws, so one `instanceof PartnerError` tells an SDK failure
 * from a bug in the caller's own code. Branch on the subclasses, or on `code` where the subclass
 * has one.
 *
 * @example
 * ```ts
 * import { ApiError, ConnectionError, PartnerClient, PartnerError } from 'mobile-partner-sdk';
 *
 * const client = new PartnerClient();
 * try {
 *   await client.sims.retrieveSubscription('8944500000000000001');
 * } catch (error) {
 *   if (error instanceof ApiError) console.log(error.status, error.code);
 *   else if (error instanceof ConnectionError) console.log('no answer; sent:', !error.requestNotSent);
 *   else if (error instanceof PartnerError) console.log(error.name, error.message);
 *   else throw error;
 * }
 * ```
 *
 * @group Errors
 */
export class PartnerError extends Error {
  override name = 'PartnerError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** The fields a log line or an error tracker may keep; never a credential. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message };
  }

  /** @internal `util.inspect` shows the same safe fields as `toJSON()`. */
  [inspectSymbol](): string {
    return `${this.name}: ${this.message} ${JSON.stringify(this.toJSON())}\n${(this.stack ?? '').split('\n').slice(1).join('\n')}`;
  }
}

/**
 * A problem with the client's own configuration: an invalid or unknown option, missing baseUrl,
 * key or secret, or a refused plain-HTTP base URL. Also an invalid or unknown option of the
 * receiving side (adapters, webhook checks, deduplicator, stores) and of the fleet classes.
 *
 * @group Errors
 */
export class ConfigurationError extends PartnerError {
  override name = 'ConfigurationError';
  /** `'CONFIGURATION_ERROR'`, or `'INSECURE_TRANSPORT'` for credentials refused over plain `http://`. */
  readonly code: ClientErrorCode;
  /** The option at fault (`'timeoutMs'`, `'defaultHeaders'`, an unknown `'baseURL'`…), when one option is. */
  readonly option: string | undefined;
  constructor(message: string, code: ClientErrorCode = 'CONFIGURATION_ERROR', option?: string) {
    super(message);
    this.code = code;
    this.option = option;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, option: this.option };
  }
}

/** What an {@link ApiError} is built from: the parts of an error answer, already scrubbed of secrets. */
export interface ApiErrorInit {
  /** The HTTP status. */
  status: number;
  /** The envelope's `error.code` (spec part 7). */
  code: ErrorCode;
  /** The envelope's `error.message`. */
  message: string;
  /** The envelope's `error.details`, when sent. */
  details?: Record<string, unknown> | undefined;
  /** Response headers, lower-cased names. */
  headers?: Record<string, string> | undefined;
  /** Method and route template of the call, e.g. `GET /api/v1.1/sims/{iccid}/subscription`. */
  route?: string | undefined;
}

/**
 * One line a log can keep: `{status} {code} {METHOD} {route}: {server message}`, then the
 * server's `details.validationErrors` (spec part 7 rule 2) in parentheses. Built from the
 * already scrubbed parts, and only when an error is made: the success path never pays for it.
 */
function apiErrorMessage(init: ApiErrorInit): string {
  const list = init.details?.['validationErrors'];
  const reasons = Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
  const where = init.route ? ` ${init.route}` : '';
  return `${init.status} ${init.code}${where}: ${init.message}${reasons.length ? ` (${reasons.join('; ')})` : ''}`;
}

/**
 * An answer of the API that is an error envelope (or an HTTP error without one). Thrown as the
 * subclass of its status (spec part 7): 400 {@link BadRequestError}, 401
 * {@link AuthenticationError}, 403 {@link PermissionDeniedError}, 404 {@link NotFoundError}, 409
 * {@link ConflictError}, 422 {@link UnprocessableEntityError}, 429 {@link RateLimitError}, 501
 * {@link NotImplementedError}, 502 `DELIVERY_FAILED` {@link DeliveryFailedError}, any other 5xx
 * {@link InternalServerError}; another status stays a plain `ApiError`.
 *
 * Retried before it reaches you: a 429 always (after its `Retry-After`), and a 5xx other than
 * 501 and `DELIVERY_FAILED` when the call is safe to repeat (a GET, a route the spec marks
 * idempotent, or a write carrying an `idempotencyKey`). A 401 re-authenticates once.
 *
 * @group Errors
 */
export class ApiError extends PartnerError {
  override name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The server's error code (spec part 7): one of the spec's codes, or a newer one as a string. */
  readonly code: ErrorCode;
  /** The envelope's `error.details`, when the server sent them. */
  readonly details: Record<string, unknown> | undefined;
  /** Response headers, lower-cased names. */
  readonly headers: Record<string, string>;
  /** Method and route template of the call, e.g. `GET /api/v1.1/sims/{iccid}`. */
  readonly route: string | undefined;
  /**
   * True when this final failure of a write (a 5xx, or a 2xx whose body could not be read)
   * leaves open whether the server applied it: check before sending it again — or, when
   * `idempotencyKey` is set, send it again with that key.
   */
  readonly mayHaveSucceeded: boolean = false;
  /**
   * With `mayHaveSucceeded`, on a write that was retried under an Idempotency-Key (a route the
   * spec marks idempotent, or any write sent with the caller's own key): the key. Sending the
   * write again with it replays the original answer if it was applied, and applies it once if not.
   */
  readonly idempotencyKey: string | undefined = undefined;

  constructor(init: ApiErrorInit) {
    super(apiErrorMessage(init));
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.headers = init.headers ?? {};
    this.route = init.route;
  }

  /** `details.validationErrors` when the server sent them (spec part 7 rule 2). */
  get validationErrors(): string[] {
    const list = this.details?.['validationErrors'];
    return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      code: this.code,
      details: this.details,
      route: this.route,
      mayHaveSucceeded: this.mayHaveSucceeded,
      idempotencyKey: this.idempotencyKey,
    };
  }
}

/**
 * 400: the server refused the input (`VALIDATION_ERROR`, `MISSING_FIELDS` …); `validationErrors` lists what. Not retried.
 *
 * @group Errors
 */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/**
 * 401 that persisted after one re-authentication, or a refused token exchange (wrong key or secret). Not retried further.
 *
 * @group Errors
 */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/**
 * 403 `FORBIDDEN`: the account may not do this. Not retried.
 *
 * @group Errors
 */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/**
 * 404: the resource does not exist (`SIM_NOT_FOUND`, `PLAN_NOT_FOUND`, `NOT_FOUND` …). Not retried.
 *
 * @group Errors
 */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/**
 * 409: the current state forbids it (`CONFLICT`, `ADMIN_ALREADY_EXISTS`), or an `Idempotency-Key` was reused with another body or route (`IDEMPOTENCY_KEY_REUSED`). Not retried.
 *
 * @group Errors
 */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/**
 * 422: well-formed input the server cannot act on. Not retried.
 *
 * @group Errors
 */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
/**
 * 429 `RATE_LIMITED`, once retries are spent: a 429 is retried after its `Retry-After`, so this
 * surfaces when the limit held through `maxRetries`, or at once when the server asked for a wait
 * longer than `maxServerWaitMs` (`retryAfterSeconds` says how long).
 *
 * @group Errors
 */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  /** Seconds the server asked to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;
  constructor(init: ApiErrorInit & { retryAfterSeconds?: number | undefined }) {
    super(init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterSeconds: this.retryAfterSeconds };
  }
}
/**
 * A 5xx other than 501 and 502 `DELIVERY_FAILED` (a gateway's 502 included), once retries are spent. Retried first when the call is safe to repeat; on a write, check `mayHaveSucceeded`.
 *
 * @group Errors
 */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}
/**
 * 501 `NOT_IMPLEMENTED`: the server does not offer this operation. Not retried.
 *
 * @group Errors
 */
export class NotImplementedError extends ApiError {
  override name = 'NotImplementedError';
}
/**
 * 502 with code DELIVERY_FAILED: a webhook test delivery failed (spec part 7). Not retried.
 * Any other 502 (a gateway's HTML page, another code) is an {@link InternalServerError}.
 *
 * @group Errors
 */
export class DeliveryFailedError extends ApiError {
  override name = 'DeliveryFailedError';
}

/** What a failure tells of a write's fate: shared by the errors of calls that never got an answer. */
function outcomeFields(error: ConnectionError | ClientClosedError): Record<string, unknown> {
  return {
    code: error.code,
    requestNotSent: error.requestNotSent,
    mayHaveSucceeded: error.mayHaveSucceeded,
    idempotencyKey: error.idempotencyKey,
  };
}

/**
 * The request never produced an HTTP answer: refused, reset, DNS failure, aborted socket.
 *
 * @group Errors
 */
export class ConnectionError extends PartnerError {
  override name = 'ConnectionError';
  readonly code: ClientErrorCode = 'CONNECTION_ERROR';
  /** True when the failure proves the request never reached the server (connection refused, DNS). */
  readonly requestNotSent: boolean;
  /**
   * True when the request of a write may have reached the server before the final attempt's
   * connection failed or timed out: it may have been applied, check before sending it again —
   * or, when `idempotencyKey` is set, send it again with that key. False for reads and when the
   * request provably never left.
   */
  readonly mayHaveSucceeded: boolean = false;
  /** See {@link ApiError.idempotencyKey}: the key to send the write again with. */
  readonly idempotencyKey: string | undefined = undefined;
  constructor(message: string, options?: { cause?: unknown; requestNotSent?: boolean }) {
    super(message, options);
    this.requestNotSent = options?.requestNotSent ?? false;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), ...outcomeFields(this) };
  }
}

/**
 * One attempt took longer than `timeoutMs`, or the whole call ran past its deadline.
 *
 * @group Errors
 */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
  override readonly code: ClientErrorCode = 'TIMEOUT';
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options?: { cause?: unknown; requestNotSent?: boolean }) {
    super(message, options);
    this.timeoutMs = timeoutMs;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), timeoutMs: this.timeoutMs };
  }
}

/**
 * Thrown by a middleware to have its attempt retried, under the rules a failed connection is
 * retried by (`maxRetries`, backoff, the call's deadline; a write that may have reached the
 * server only when idempotency covers it). Any other error a middleware throws ends the call as it is.
 *
 * @group Errors
 */
export class RetryableError extends ConnectionError {
  override name = 'RetryableError';
  override readonly code: ClientErrorCode = 'RETRYABLE';
  /**
   * @param message What went wrong, for the logs and, when no retry is left, the caller.
   * @param options `cause`: what the middleware caught. `requestNotSent` is set by the client:
   *   true when the middleware threw before its attempt's request was sent on.
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The client was closed: a call made after `close()` or `destroy()`, or one cut by `destroy()`
 * or by `close({ timeoutMs })` running out, wherever it was (in flight, in a retry wait, in the
 * rate limiter's queue, waiting for a token).
 *
 * @group Errors
 */
export class ClientClosedError extends PartnerError {
  override name = 'ClientClosedError';
  readonly code: ClientErrorCode = 'CLIENT_CLOSED';
  /** True when no attempt of the call had been sent: nothing reached the server. */
  readonly requestNotSent: boolean;
  /** See {@link ConnectionError.mayHaveSucceeded}: a cut write whose request had left. */
  readonly mayHaveSucceeded: boolean = false;
  /** See {@link ApiError.idempotencyKey}. */
  readonly idempotencyKey: string | undefined = undefined;
  constructor(message: string, options?: { requestNotSent?: boolean }) {
    super(message);
    this.requestNotSent = options?.requestNotSent ?? true;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), ...outcomeFields(this) };
  }
}

/**
 * The server answered with a redirect (3xx). Redirects are never followed, on either transport:
 * following one would re-send the credentials or the bearer token to wherever `Location`
 * points. Nothing was re-sent, and the call is not retried. Only the target's origin is kept,
 * never the full `Location`, which may carry a secret.
 *
 * @group Errors
 */
export class RedirectError extends PartnerError {
  override name = 'RedirectError';
  readonly code: ClientErrorCode = 'REDIRECT_NOT_FOLLOWED';
  /**
   * The 3xx status; 0 when the 3xx itself was not seen: a `fetch` that returned an opaque
   * redirect, or one that followed the redirect despite `redirect: 'manual'` (its answer is
   * refused all the same).
   */
  readonly status: number;
  /** `scheme://host:port` of the redirect target, when it had one. */
  readonly targetOrigin: string | undefined;
  constructor(status: number, targetOrigin: string | undefined) {
    super(
      `${status === 0 ? 'a redirect' : `HTTP ${status} redirect`}${targetOrigin ? ` to ${targetOrigin}` : ''} was not followed: the client never follows redirects`,
    );
    this.status = status;
    this.targetOrigin = targetOrigin;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, status: this.status, targetOrigin: this.targetOrigin };
  }
}

/**
 * An answer larger than the client reads: a body over `maxResponseBytes` (refused on its
 * Content-Length, or as soon as its bytes so far pass the limit, without buffering the rest),
 * or headers over the HTTP parser's limit. Not retried: the same answer would be as large again.
 *
 * @group Errors
 */
export class ResponseTooLargeError extends PartnerError {
  override name = 'ResponseTooLargeError';
  readonly code: ClientErrorCode = 'RESPONSE_TOO_LARGE';
  /** Which part was too large. */
  readonly part: 'body' | 'headers';
  /** The HTTP status of the answer, when its headers were read. */
  readonly status: number | undefined;
  /** `maxResponseBytes` for a body; undefined for headers (the parser's own limit). */
  readonly limitBytes: number | undefined;
  constructor(part: 'body' | 'headers', status: number | undefined, limitBytes: number | undefined, options?: { cause?: unknown }) {
    super(
      part === 'body'
        ? `the response body exceeds maxResponseBytes (${String(limitBytes)} bytes)${status ? ` (HTTP ${status})` : ''}`
        : "the response headers exceed the HTTP parser's size limit",
      options,
    );
    this.part = part;
    this.status = status;
    this.limitBytes = limitBytes;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, part: this.part, status: this.status, limitBytes: this.limitBytes };
  }
}

/**
 * A body that is not the JSON envelope the spec promises (an HTML 502 from a proxy, a truncated body).
 *
 * @group Errors
 */
export class InvalidResponseError extends ApiError {
  override name = 'InvalidResponseError';
}

/** One problem with a value: where, and what. */
export interface ValidationIssue {
  /** Dotted path of the offending field, '' for the value itself. */
  path: string;
  /** What is wrong, e.g. `Invalid input: expected string, received number`. */
  message: string;
}

function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
}

/**
 * Bad input caught before any request was sent: nothing left the process. Not retried.
 *
 * @group Errors
 */
export class RequestValidationError extends PartnerError {
  override name = 'RequestValidationError';
  /** Always `'REQUEST_VALIDATION_ERROR'`. */
  readonly code: ClientErrorCode = 'REQUEST_VALIDATION_ERROR';
  /** Every problem found, not just the first. */
  readonly issues: readonly ValidationIssue[];
  constructor(issues: readonly ValidationIssue[], context?: string) {
    super(`${context ? `${context}: ` : ''}invalid request: ${formatIssues(issues)}`);
    this.issues = issues;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, issues: this.issues };
  }
}

/**
 * The server's data does not fit the schema of the route (with `validateResponses` on, the
 * default). The call itself succeeded on the server: a write was applied. Not retried.
 *
 * @group Errors
 */
export class ResponseValidationError extends PartnerError {
  override name = 'ResponseValidationError';
  /** Always `'RESPONSE_VALIDATION_ERROR'`. */
  readonly code: ClientErrorCode = 'RESPONSE_VALIDATION_ERROR';
  /** Where the answer departs from the schema. */
  readonly issues: readonly ValidationIssue[];
  /** Method and route template of the call. */
  readonly route: string | undefined;
  constructor(issues: readonly ValidationIssue[], route?: string) {
    super(`${route ? `${route}: ` : ''}response does not match the expected shape: ${formatIssues(issues)}`);
    this.issues = issues;
    this.route = route;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, issues: this.issues, route: this.route };
  }
}

/**
 * Why a webhook delivery failed verification: a header missing or malformed, a timestamp outside
 * the tolerance, no signature matching any secret, a secret that is not a signing secret, or a
 * body that is not the JSON object of an event.
 */
export type WebhookSignatureFailureReason =
  | 'missing_header'
  | 'malformed_header'
  | 'missing_timestamp'
  | 'missing_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_secret'
  | 'invalid_body'
  | 'invalid_payload';

/**
 * A webhook delivery failed verification; `reason` is machine-readable.
 *
 * @group Errors
 */
export class WebhookSignatureError extends PartnerError {
  override name = 'WebhookSignatureError';
  /** Always `'WEBHOOK_SIGNATURE_INVALID'`. */
  readonly code: ClientErrorCode = 'WEBHOOK_SIGNATURE_INVALID';
  /** Machine-readable: branch on this, not on the message. */
  readonly reason: WebhookSignatureFailureReason;
  constructor(reason: WebhookSignatureFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, reason: this.reason };
  }
}
