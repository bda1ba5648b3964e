import {
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  DeliveryFailedError,
  InternalServerError,
  InvalidResponseError,
  NotFoundError,
  NotImplementedError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
} from './errors.js';
import { safeParse } from 'zod/mini';
import { PARSE_OPTIONS } from '../schemas/messages.js';
import { parseRetryAfterSeconds } from './headers.js';
import type { Scrubber } from './redact.js';
import type { ApiResult, RequestSpec, ResponseInfo } from './request.js';
import { toValidationIssues } from './validate.js';

/** The error class of an HTTP status (spec part 7). */
function errorForStatus(init: ApiErrorInit): ApiError {
  switch (init.status) {
    case 400:
      return new BadRequestError(init);
    case 401:
      return new AuthenticationError(init);
    case 403:
      return new PermissionDeniedError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 422:
      return new UnprocessableEntityError(init);
    case 429:
      return new RateLimitError({ ...init, retryAfterSeconds: parseRetryAfterSeconds(init.headers ?? {}) });
    case 501:
      return new NotImplementedError(init);
    case 502:
      // spec part 7: 502 DELIVERY_FAILED is the webhook test route's answer; any other 502 is a
      // gateway's, a transient server error like a 500.
      return init.code === 'DELIVERY_FAILED' ? new DeliveryFailedError(init) : new InternalServerError(init);
    default:
      return init.status >= 500 ? new InternalServerError(init) : new ApiError(init);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Response headers as an error keeps them: a server or proxy may echo a credential in one. */
function errorHeaders(headers: Record<string, string>, scrubber: Scrubber): Record<string, string> {
  return scrubber.value(headers) as Record<string, string>;
}

function invalid(status: number, headers: Record<string, string>, route: string, message: string, scrubber: Scrubber): ApiError {
  const init: ApiErrorInit = { status, code: 'INVALID_RESPONSE', message, headers: errorHeaders(headers, scrubber), route };
  // A status the caller branches on (a 503 HTML page is still a retryable 5xx) keeps its class.
  return status >= 400 ? errorForStatus(init) : new InvalidResponseError(init);
}

function apiError(status: number, body: Record<string, unknown>, headers: Record<string, string>, route: string, scrubber: Scrubber): ApiError {
  const error = body['error'];
  if (!isRecord(error) || typeof error['code'] !== 'string') {
    return invalid(status, headers, route, `HTTP ${status} without an error envelope`, scrubber);
  }
  const message = typeof error['message'] === 'string' ? error['message'] : `HTTP ${status}`;
  const details = isRecord(error['details']) ? (scrubber.value(error['details']) as Record<string, unknown>) : undefined;
  return errorForStatus({
    status,
    code: error['code'],
    message: scrubber.text(message),
    details,
    headers: errorHeaders(headers, scrubber),
    route,
  });
}

/**
 * Turns one HTTP answer into the typed result, or throws the typed error (spec parts 1 and 7).
 * The body is parsed once and validated once; nothing here throws a SyntaxError.
 */
export function unwrap<T>(body: string, info: ResponseInfo, spec: RequestSpec<T>, validate: boolean, scrubber: Scrubber): ApiResult<T> {
  const { status, headers } = info;
  if (body === '') {
    if (status !== 204) throw invalid(status, headers, spec.route, `HTTP ${status} with an empty body`, scrubber);
    return finish(undefined, undefined, info, spec, validate);
  }
  const parsed = parseJson(body);
  if (!parsed.ok) {
    throw invalid(status, headers, spec.route, `HTTP ${status} with a body that is not complete JSON`, scrubber);
  }
  const json = parsed.value;
  if (status >= 400 || (isRecord(json) && json['success'] === false)) {
    if (!isRecord(json)) throw invalid(status, headers, spec.route, `HTTP ${status} without an error envelope`, scrubber);
    throw apiError(status, json, headers, spec.route, scrubber);
  }
  if (!spec.envelope) return finish(json, undefined, info, spec, validate);
  if (!isRecord(json) || json['success'] !== true) {
    throw invalid(status, headers, spec.route, `HTTP ${status} without the success envelope`, scrubber);
  }
  const meta = isRecord(json['meta']) ? json['meta'] : undefined;
  return finish(json['data'], meta, info, spec, validate);
}

function finish<T>(
  data: unknown,
  meta: Record<string, unknown> | undefined,
  response: ResponseInfo,
  spec: RequestSpec<T>,
  validate: boolean,
): ApiResult<T> {
  if (!spec.schema || !validate) return { data: data as T, meta, response };
  const result = safeParse(spec.schema, data);
  // The SDK's own messages cost a context per parse, so only an answer refused pays for them.
  if (!result.success)
    throw new ResponseValidationError(toValidationIssues((safeParse(spec.schema, data, PARSE_OPTIONS).error ?? result.error).issues), spec.route);
  return { data: result.data, meta, response };
}
