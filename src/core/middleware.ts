/**
 * Middleware: the one place a partner extends the client (a tenant header, logging, a cache, a
 * fallback, a stub in a test). A chain runs once per attempt, inside the retry loop, the rate
 * limiter and the call's deadline, around the wire: what it is given is one attempt's request,
 * what it gives back is handled exactly as the server's answer.
 */
import type { HttpMethod, Logger } from './types.js';

/**
 * One attempt's request as it will be sent, built afresh for each attempt: what a middleware
 * changes on it (a header, the URL) never leaks into the next attempt.
 */
export interface MiddlewareRequest {
  method: HttpMethod;
  /** Absolute: the origin, the encoded path and the query string, sent as written. */
  url: string;
  /** This attempt's headers, the bearer included; `Idempotency-Key` is the client's, whatever is set here. */
  headers: Headers;
  /** The JSON body as sent, or undefined: a string, so it can be read any number of times. */
  body: string | undefined;
}

/** What a middleware knows of the call besides its request. */
export interface MiddlewareContext {
  /** The method the partner called: `'sims.list'`; `'request'` for `client.request()`, `'auth.token'` for the token exchange. */
  readonly operation: string;
  /** Method and path template: `'GET /api/v1.1/sims'`. */
  readonly route: string;
  /** 1 for the first attempt, 2 for the first retry … (a replay after a 401 counts too). */
  readonly attempt: number;
  /** The key every attempt of this call carries; a middleware cannot change it. */
  readonly idempotencyKey: string | undefined;
  /** Aborts when the attempt is over for the client (a getter: a spread leaves it out). */
  readonly signal: AbortSignal;
  /** The client's logger, at its `logLevel`. */
  readonly logger: Logger;
}

/** Sends `request` on: to the next middleware, or to the server. Resolves to its answer, whatever its status. */
export type MiddlewareNext = (request: MiddlewareRequest) => Promise<Response>;

/**
 * A function around each attempt of a call: it may change the request, call `next` (once, more
 * than once, or not at all) and return `next`'s response or one of its own. Throwing ends the
 * call with that error, not retried; throw a {@link RetryableError} to have the attempt retried.
 *
 * @example
 * ```ts
 * import { PartnerClient, type Middleware } from 'mobile-partner-sdk';
 *
 * const tenant: Middleware = async (request, next) => {
 *   request.headers.set('x-tenant', 'acme');
 *   return next(request);
 * };
 * const client = new PartnerClient({ middleware: [tenant] });
 * ```
 */
export type Middleware = (request: MiddlewareRequest, next: MiddlewareNext, context: MiddlewareContext) => Promise<Response>;

/** What a chain's value must look like: a WHATWG Response of any realm (the platform's, undici's, a polyfill's). */
function isResponse(value: unknown): value is Response {
  // The platform's own first: reading `headers` of the Response `next()` resolved to would build
  // its Headers, which nothing else may ever need.
  if (typeof Response === 'function' && value instanceof Response) return true;
  const response = value as Partial<Response> | null;
  return (
    typeof response === 'object' &&
    response !== null &&
    typeof response.status === 'number' &&
    typeof response.headers?.forEach === 'function' &&
    typeof response.text === 'function'
  );
}

/**
 * The chain from `middleware[0]` to `send`. What each inner middleware resolves is checked to be a
 * Response before the one around it sees it; what the outermost resolves is given as it is, for
 * the caller to check with {@link checkedAnswer} (one promise fewer per attempt).
 */
export function runChain(
  middleware: readonly Middleware[],
  request: MiddlewareRequest,
  context: MiddlewareContext,
  send: MiddlewareNext,
): Promise<unknown> {
  return dispatch(middleware, 0, request, context, send);
}

/** `middleware[index]` around the rest of the chain; a function of its own, so that a chain of one makes no closure. */
function dispatch(
  middleware: readonly Middleware[],
  index: number,
  request: MiddlewareRequest,
  context: MiddlewareContext,
  send: MiddlewareNext,
): Promise<unknown> {
  const layer = middleware[index];
  if (layer === undefined) return send(request);
  try {
    // The innermost's `next` is the send itself: its answer needs no check (one promise fewer).
    const inner = index + 1;
    const next: MiddlewareNext =
      inner < middleware.length
        ? (forward) => dispatch(middleware, inner, forward, context, send).then((value) => checkedAnswer(value, middleware, inner, context))
        : send;
    return Promise.resolve(layer(request, next, context));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** What `middleware[index]` resolved, if it is a Response; else the TypeError that names the middleware. */
export function checkedAnswer(value: unknown, middleware: readonly Middleware[], index: number, context: MiddlewareContext): Response {
  if (isResponse(value) || index >= middleware.length) return value as Response;
  const name = middleware[index]?.name ? ` ${middleware[index]?.name}` : '';
  throw new TypeError(`middleware${name} (number ${index + 1}) of ${context.operation} resolved ${describe(value)}, not a Response`);
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
