import type { Middleware } from './middleware.js';
import type { z } from 'zod/mini';
import type { TransactionWaitObservation } from './observer.js';
import type { HttpMethod, RateLimitInfo } from './types.js';

export type { HttpMethod, RateLimitInfo } from './types.js';

/**
 * Options every method takes as its optional last argument. A member not named here is refused
 * with a `RequestValidationError` naming the nearest option, before anything is sent.
 */
export interface RequestOptions {
  /**
   * Sent as `Idempotency-Key`; generated (a UUID) for idempotent writes when absent. Giving one
   * asserts that the route honours it: the write is then retried after timeouts and 5xx with
   * this key. 1–255 printable ASCII characters.
   */
  idempotencyKey?: string | undefined;
  /** Aborts the call at once, including during a backoff or Retry-After wait. */
  signal?: AbortSignal | undefined;
  /** Per attempt; overrides the client's `timeoutMs`. An integer from 1 to 2^31−1. */
  timeoutMs?: number | undefined;
  /** Overrides the client's `maxRetries` for this call. An integer from 0 to 10. */
  maxRetries?: number | undefined;
  /**
   * Extra request headers: token names, printable ASCII values. `Authorization` and
   * `Idempotency-Key` are set by the client.
   */
  headers?: Record<string, string> | undefined;
  /**
   * Functions run around each attempt of this call, inside the client's `middleware`
   * ({@link Middleware}); never around a token exchange the call needs.
   */
  middleware?: readonly Middleware[] | undefined;
}

/** Query parameters by wire name; `undefined` and `null` values are left out, the rest sent as text. */
export type Query = Record<string, string | number | boolean | null | undefined>;

/** What one route of the API is: declared once per endpoint by a resource. */
export interface RouteDefinition<T> {
  /** The method a partner calls, as middleware and telemetry name it: `'sims.list'`, `'esim.provision'`. */
  operation: string;
  method: HttpMethod;
  /** Path template with `{name}` placeholders, e.g. `/api/v1.1/sims/{iccid}/subscription`. */
  path: string;
  /** Schema of the unwrapped `data` (or of the whole body when `envelope` is false). */
  schema: z.core.$ZodType<T>;
  /** false for the open routes (transaction poll, port-in eligibility): no bearer is sent. */
  auth?: boolean;
  /** false when the answer is outside the standard envelope (port-in submission). */
  envelope?: boolean;
  /**
   * The spec promises idempotency for this route (marked "(idem)" in spec part 4): a key is
   * generated when the caller gives none, and the call is retried after a timeout, a reset or a
   * 5xx with the same key.
   */
  idempotent?: boolean;
  /**
   * Send a generated `Idempotency-Key` although the spec does not promise the route honours it
   * (the asynchronous writes): harmless, and it helps if the server does. Such a write is still
   * not retried once it may have reached the server.
   */
  generateIdempotencyKey?: boolean;
}

/** A route resolved for one call: placeholders filled and encoded, and what to send. */
export interface RequestSpec<T = unknown> {
  /** The method a partner called (`'sims.list'`); `'request'` for `client.request()`, `'auth.token'` for the exchange. */
  operation: string;
  method: HttpMethod;
  /** The encoded path, ready for the wire. */
  path: string;
  /** Method and template, the endpoint's identity for rate limits, logs and errors: `POST /api/v1.1/sims/{iccid}/renew-number`. */
  route: string;
  /** Set by `client.request()`: `route` is the path as given, not a template, and may carry values. */
  rawPath?: boolean | undefined;
  query?: Query | undefined;
  body?: unknown;
  auth: boolean;
  envelope: boolean;
  /** The spec promises idempotency: retried after any retryable failure with one key. */
  idempotent: boolean;
  /** Send a generated key without relying on it (see RouteDefinition). */
  generateIdempotencyKey?: boolean | undefined;
  /** Absent for `client.request()` without a schema: the data is returned as `unknown`. */
  schema?: z.core.$ZodType<T> | undefined;
  /**
   * Validate the answer whatever `validateResponses` says: set where the SDK itself consumes the
   * data (the token exchange), so that "trust the server" never becomes a TypeError inside it.
   */
  alwaysValidate?: boolean | undefined;
  options?: RequestOptions | undefined;
}

/** What `.withResponse()` tells besides the data. */
export interface ResponseInfo {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  rateLimit: RateLimitInfo | undefined;
  idempotencyReplayed: boolean;
}

/**
 * Envelope `meta` of a list (spec part 2). Typed exactly: any other member the server sends is
 * kept at runtime but not in the type, so a misspelt count does not compile.
 */
export interface PageMeta {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

/** One finished call, as the transport hands it back. */
export interface ApiResult<T> {
  data: T;
  meta: Record<string, unknown> | undefined;
  response: ResponseInfo;
}

/** The pipeline every call goes through (auth, limiter, retries, wire, envelope, schema). */
export interface Transport {
  send<T>(spec: RequestSpec<T>): Promise<ApiResult<T>>;
  /** A copy of server-sent data with the client's known secrets removed, for errors built above the transport. */
  redact<V>(value: V): V;
  /** Starts observing a transaction's `wait()` for `operation` (`POST /api/v1.1/esim`), when the client's observer is enabled. */
  watchTransaction(operation: string | undefined): TransactionWaitObservation | undefined;
  /**
   * A wait between two calls of a longer operation (the polls of `wait()`): rejects with the
   * signal's reason when it aborts, and with a ClientClosedError the moment the client is closed
   * or destroyed, since the next call would be refused anyway.
   */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Percent-encodes a path parameter as exactly one segment; `.` and `..` stay data, never navigation. */
function encodePathSegment(value: string | number): string {
  const text = String(value);
  if (text === '.' || text === '..') return text.replace(/\./g, '%2E');
  return encodeURIComponent(text);
}

type TemplatePart = { literal: string } | { param: string };

const compiled = new Map<string, TemplatePart[]>();

function compile(template: string): TemplatePart[] {
  let parts = compiled.get(template);
  if (parts) return parts;
  parts = [];
  const pattern = /\{(\w+)\}/g;
  let last = 0;
  for (let match = pattern.exec(template); match; match = pattern.exec(template)) {
    if (match.index > last) parts.push({ literal: template.slice(last, match.index) });
    parts.push({ param: match[1] as string });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push({ literal: template.slice(last) });
  compiled.set(template, parts);
  return parts;
}

/** Fills `{name}` placeholders of a path template with encoded values. */
function buildPath(template: string, params: Record<string, string | number> = {}): string {
  let out = '';
  for (const part of compile(template)) {
    if ('literal' in part) {
      out += part.literal;
      continue;
    }
    const value = params[part.param];
    if (value === undefined) throw new TypeError(`missing path parameter "${part.param}" for ${template}`);
    out += encodePathSegment(value);
  }
  return out;
}

export interface CallInput {
  params?: Record<string, string | number>;
  query?: Query | undefined;
  body?: unknown;
  options?: RequestOptions | undefined;
}

/** Resolves a route declaration and one call's input into what the transport sends. */
export function toRequestSpec<T>(route: RouteDefinition<T>, input: CallInput = {}): RequestSpec<T> {
  return {
    operation: route.operation,
    method: route.method,
    path: buildPath(route.path, input.params),
    route: `${route.method} ${route.path}`,
    query: input.query,
    body: input.body,
    auth: route.auth ?? true,
    envelope: route.envelope ?? true,
    idempotent: route.idempotent ?? false,
    generateIdempotencyKey: route.generateIdempotencyKey,
    schema: route.schema,
    options: input.options,
  };
}
