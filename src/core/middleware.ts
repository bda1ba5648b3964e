/**
 * Middleware: the one place a partner extends the client (a tenant header, logging, a cache, a
 * fallback, a stub in a test). A chain runs once per attempt, inside the retry loop, the rate
 * limiter and the call's deadline, around the wire: what it is given is one attempt's request,
 * what it gives back is handled exactly as the server's answer.
 */
import { RetryableError } from './errors.js';
import type { Logger } from './options.js';
import type { HttpMethod } from './request.js';
import { AttemptSignal, readAnswer, type Wire, type WireRequest, type WireResponse } from './wire.js';

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
  /** Aborts when the attempt is over for the client: timed out, the caller's signal, the client closed. */
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
  const response = value as Partial<Response> | null;
  return (
    typeof response === 'object' &&
    response !== null &&
    typeof response.status === 'number' &&
    typeof response.headers?.forEach === 'function' &&
    typeof response.text === 'function'
  );
}

/** `middleware[index]` and those after it, then `send`; each one's answer checked to be a Response. */
function runChain(
  middleware: readonly Middleware[],
  request: MiddlewareRequest,
  context: MiddlewareContext,
  send: MiddlewareNext,
): Promise<Response> {
  const dispatch = (index: number, current: MiddlewareRequest): Promise<Response> => {
    const layer = middleware[index];
    if (layer === undefined) return send(current);
    let answer: Promise<Response>;
    try {
      answer = Promise.resolve(layer(current, (next) => dispatch(index + 1, next), context));
    } catch (error) {
      return Promise.reject(error);
    }
    return answer.then((response: unknown) => {
      if (isResponse(response)) return response;
      const name = layer.name ? ` ${layer.name}` : '';
      throw new TypeError(`middleware${name} (number ${index + 1}) of ${context.operation} resolved ${describe(response)}, not a Response`);
    });
  };
  return dispatch(0, request);
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** What one attempt through a chain needs of its call. */
export interface ChainAttempt {
  middleware: readonly Middleware[];
  wire: Wire;
  /** The request as the client built it for this attempt (its signal is the attempt's). */
  request: WireRequest;
  context: Omit<MiddlewareContext, 'signal'>;
  maxResponseBytes: number;
  /** The typed error of a failed exchange, as the call reports wire failures (see CallLifetime.attemptFailure). */
  failure(error: unknown, origin: string): unknown;
  /** Told of an error a middleware threw of its own: it ends the call as it is, unretried. */
  ownFailure(error: unknown): void;
}

/** Statuses whose Response has no body (the Fetch standard's null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * One attempt through the chain: each middleware gets a fresh request, `next` sends through the
 * wire (the `Idempotency-Key` put back to the call's own), and whatever Response the chain
 * returns is read as the server's answer. Resolves or rejects no later than the attempt's signal
 * aborts, however long a middleware takes.
 */
export async function sendThroughChain(attempt: ChainAttempt): Promise<WireResponse> {
  const { request, wire } = attempt;
  const key = attempt.context.idempotencyKey;
  const controller = new AbortController();
  const attemptSignal = request.signal;
  /** Answers of `next`, by the Response handed out: returned as they are, they are not read again. */
  const answers = new WeakMap<Response, WireResponse>();
  /** Failures of `next`: a middleware that lets one through is not the cause of the call's end. */
  const passed = new WeakSet<object>();
  let sent = false;
  const send: MiddlewareNext = async (next) => {
    const { origin, path } = splitUrl(next.url);
    const headers: Record<string, string> = {};
    next.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (key === undefined) delete headers['idempotency-key'];
    else headers['idempotency-key'] = key;
    const signal = new AttemptSignal();
    const onAbort = (): void => signal.abort(controller.signal.reason);
    if (controller.signal.aborted) onAbort();
    else controller.signal.addEventListener('abort', onAbort, { once: true });
    sent = true;
    try {
      const answer = await wire.send({ method: next.method, origin, path, headers, body: next.body, signal });
      const response = new Response(NULL_BODY.has(answer.status) ? null : answer.body, { status: answer.status, headers: answer.headers });
      answers.set(response, answer);
      return response;
    } catch (error) {
      const typed = attempt.failure(error, origin);
      if (typeof typed === 'object' && typed !== null) passed.add(typed);
      throw typed;
    } finally {
      controller.signal.removeEventListener('abort', onAbort);
    }
  };
  const guardedSend: MiddlewareNext = (next) => {
    const answer = send(next);
    // A middleware may start `next` and answer without awaiting it: its failure is then no one's.
    answer.catch(ignore);
    return answer;
  };
  if (attemptSignal.aborted) controller.abort(attemptSignal.reason);
  else attemptSignal.target = { abortAttempt: (reason) => controller.abort(reason) };
  const initial: MiddlewareRequest = {
    method: request.method,
    url: request.origin + request.path,
    headers: new Headers(request.headers),
    body: request.body,
  };
  const chain = runChain(attempt.middleware, initial, { ...attempt.context, signal: controller.signal }, guardedSend);
  try {
    const response = await untilAborted(chain, controller.signal);
    return answers.get(response) ?? (await readAnswer(response, initial.url, attempt.maxResponseBytes));
  } catch (error) {
    if (controller.signal.aborted || (typeof error === 'object' && error !== null && passed.has(error))) throw error;
    if (error instanceof RetryableError) {
      (error as { requestNotSent: boolean }).requestNotSent = !sent;
      throw error;
    }
    attempt.ownFailure(error);
    throw error;
  } finally {
    attemptSignal.target = undefined;
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts (the promise's own rejection then ignored). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(ignore);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** An absolute http(s) URL as the wire takes it: the origin, and the path and query as written. */
function splitUrl(url: unknown): { origin: string; path: string } {
  if (typeof url === 'string') {
    const scheme = url.indexOf('://');
    const head = url.slice(0, scheme).toLowerCase();
    if (scheme > 0 && (head === 'https' || head === 'http')) {
      const slash = url.indexOf('/', scheme + 3);
      return slash < 0 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
    }
  }
  throw new TypeError(
    `a middleware passed next() a request whose url is not an absolute http(s) URL (got ${typeof url === 'string' ? JSON.stringify(url.slice(0, 80)) : typeof url})`,
  );
}

function ignore(): void {}
