import { EventEmitter } from 'node:events';
import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { ConfigurationError, ConnectionError } from './errors.js';
import type { Scrubber } from './redact.js';
import type { HttpMethod } from './request.js';

/** One HTTP exchange as the layers above the wire see it, whatever carried it. */
export interface WireRequest {
  method: HttpMethod;
  /** `https://host:port`, no trailing slash. */
  origin: string;
  /** Encoded path plus query string, sent exactly as given. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AttemptSignal;
}

/**
 * Cancels one attempt. undici accepts an EventEmitter with `aborted`/`reason` as a signal,
 * which costs a fraction of an AbortController (whose creation was the largest item of the
 * per-call overhead); the fetch wire links a real AbortController to it.
 */
export class AttemptSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.emit('abort');
  }
}

export interface WireResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The whole body as text; JSON is parsed once, above the wire. */
  body: string;
}

export interface Wire {
  send(request: WireRequest): Promise<WireResponse>;
  /** Releases sockets the wire owns. */
  close(): Promise<void>;
}

const proxyVariables = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

function proxyConfigured(): boolean {
  if (typeof process === 'undefined') return false;
  return proxyVariables.some((name) => Boolean(process.env[name]));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  // undici already lower-cases names; only repeated headers need work.
  for (const name in headers) {
    if (typeof headers[name] !== 'string') {
      const out: Record<string, string> = {};
      for (const key in headers) {
        const value = headers[key];
        if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
      }
      return out;
    }
  }
  return headers as Record<string, string>;
}

/**
 * undici's `dispatcher.request()` with plain objects: no URL parsing (so an encoded `%2E%2E`
 * segment stays data) and no WHATWG Headers. The keep-alive Agent is created on the first call.
 */
export class UndiciWire implements Wire {
  #dispatcher: Dispatcher | undefined;
  readonly #owned: boolean;
  #closed = false;

  constructor(dispatcher?: Dispatcher) {
    this.#dispatcher = dispatcher;
    this.#owned = dispatcher === undefined;
  }

  async send(request: WireRequest): Promise<WireResponse> {
    // A retry scheduled before close() must not open a fresh pool behind the caller's back.
    if (this.#closed) throw new ConfigurationError('the client is closed');
    this.#dispatcher ??= proxyConfigured()
      ? new EnvHttpProxyAgent({ keepAliveTimeout: 10_000 })
      : new Agent({ keepAliveTimeout: 10_000 });
    const response = await this.#dispatcher.request({
      origin: request.origin,
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal: request.signal,
    });
    const body = await response.body.text();
    return { status: response.statusCode, headers: flattenHeaders(response.headers), body };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const dispatcher = this.#dispatcher;
    if (!dispatcher || !this.#owned) return;
    this.#dispatcher = undefined;
    await dispatcher.destroy();
  }
}

/** A caller-supplied WHATWG fetch (msw, Bun, Deno, edge runtimes). */
export class FetchWire implements Wire {
  readonly #fetch: typeof globalThis.fetch;

  constructor(fetchImpl: typeof globalThis.fetch) {
    this.#fetch = fetchImpl;
  }

  async send(request: WireRequest): Promise<WireResponse> {
    const controller = new AbortController();
    const attempt = request.signal;
    const onAbort = (): void => controller.abort(attempt.reason);
    if (attempt.aborted) onAbort();
    else attempt.once('abort', onAbort);
    try {
      return await this.#exchange(request, controller.signal);
    } finally {
      attempt.removeListener('abort', onAbort);
    }
  }

  async #exchange(request: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    const response = await this.#fetch(request.origin + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal,
    });
    const body = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, headers, body };
  }

  async close(): Promise<void> {}
}

/** Error codes proving the request never left this machine, so even a non-idempotent write may be retried. */
const notSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') return undefined;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A copy of an error chain safe to print or ship to a tracker: name, code, message, stack and
 * cause of each link, with every known secret removed. A dispatcher, a proxy agent or a custom
 * fetch may put request headers or URLs with credentials into its errors.
 */
function scrubbedChain(error: unknown, scrubber: Scrubber, depth = 0): unknown {
  if (!(error instanceof Error)) return scrubber.value(error);
  const copy = new Error(scrubber.text(error.message));
  copy.name = error.name;
  if (error.stack !== undefined) copy.stack = scrubber.text(error.stack);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.defineProperty(copy, 'code', { value: code, enumerable: true });
  if (error.cause !== undefined && depth < 5) copy.cause = scrubbedChain(error.cause, scrubber, depth + 1);
  return copy;
}

/** Any failure below HTTP as a ConnectionError; the message names the origin and the code, nothing else. */
export function toConnectionError(error: unknown, origin: string, scrubber: Scrubber): ConnectionError {
  if (error instanceof ConnectionError) return error;
  const code = errorCode(error);
  return new ConnectionError(`connection to ${origin} failed${code ? ` (${code})` : ''}`, {
    cause: scrubbedChain(error, scrubber),
    requestNotSent: code !== undefined && notSentCodes.has(code),
  });
}
