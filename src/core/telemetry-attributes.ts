/**
 * The attribute names and values spans and metrics share: the HTTP client semantic conventions
 * where they fit, the SDK's own under `partner.`. Every value is built from the route template,
 * the origin, statuses, counts and error class names: never a path value, a header or a body.
 */
import { ApiError, PartnerError } from './errors.js';
import type { CallStart } from './observer.js';
import { TransactionFailedError } from './transaction-errors.js';

export const ATTR = {
  method: 'http.request.method',
  status: 'http.response.status_code',
  resendCount: 'http.request.resend_count',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  urlScheme: 'url.scheme',
  urlTemplate: 'url.template',
  errorType: 'error.type',
  attempts: 'partner.attempts',
  callEnd: 'partner.call.end',
  retryReasons: 'partner.retry.reasons',
  retryReason: 'partner.retry.reason',
  rateLimitWaitMs: 'partner.rate_limit.wait_ms',
  idempotencyKey: 'partner.idempotency_key.present',
  replayed: 'partner.idempotency.replayed',
  validation: 'partner.response.validation',
  errorCode: 'partner.error.code',
  waitReason: 'partner.wait.reason',
  waitPlannedMs: 'partner.wait.planned_ms',
  statusClass: 'partner.status_class',
  operation: 'partner.operation',
  polls: 'partner.transaction.polls',
  transactionStatus: 'partner.transaction.status',
} as const;

/** A code as the spec writes them (`SIM_NOT_FOUND`): anything else a server sends is left out, it could be anything. */
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** The path template of a call (`/api/v1.1/sims/{iccid}`), or undefined for `client.request()`, whose route holds the path as given. */
export function urlTemplate(call: CallStart): string | undefined {
  return call.rawPath ? undefined : call.route.slice(call.method.length + 1);
}

/**
 * `error.type` as the HTTP conventions put it: the status code of an error answer, else the
 * error's class name (`TimeoutError`, `ResponseValidationError`, `AbortError`).
 */
export function errorType(error: unknown): string {
  if (error instanceof ApiError && error.status >= 400) return String(error.status);
  if (error instanceof Error && error.name) return error.name;
  return '_OTHER';
}

/** What an attempt ended with, for `error.type` and retry reasons; undefined for an answer that is not an error. */
export function attemptErrorType(status: number | undefined, error: unknown): string | undefined {
  if (error !== undefined) return errorType(error);
  return status !== undefined && status >= 400 ? String(status) : undefined;
}

/** The error's code (the server's, or the client's own such as `TIMEOUT`), when it reads as a code. */
export function errorCode(error: unknown): string | undefined {
  const code =
    error instanceof TransactionFailedError ? error.errorCode : error instanceof PartnerError ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && CODE.test(code) ? code : undefined;
}

/** A transaction status as the server sent it when it reads as a code (`PROCESSING`), else `_OTHER`. */
export function transactionStatus(status: string): string {
  return CODE.test(status) ? status : '_OTHER';
}

/** `2xx` … `5xx`, or `none` when no answer came. */
export function statusClass(status: number | undefined): string {
  return status === undefined ? 'none' : `${Math.floor(status / 100)}xx`;
}

/** `server.address`, `server.port` and `url.scheme` of an origin. */
export interface ServerAttributes {
  readonly address: string;
  readonly port: number;
  readonly scheme: string;
}

export function serverAttributes(origin: string): ServerAttributes {
  const url = new URL(origin);
  const scheme = url.protocol.slice(0, -1);
  // An IPv6 host is bracketed in a URL, not in server.address.
  const address = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { address, port: url.port ? Number(url.port) : scheme === 'https' ? 443 : 80, scheme };
}
