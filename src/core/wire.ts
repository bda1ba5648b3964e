import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { ClientClosedError, ConnectionError, RedirectError, ResponseTooLargeError } from './errors.js';
import { parseDigits } from './http-grammar.js';
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

/** What an attempt's signal cuts: the exchange in flight, if any. */
export interface AttemptTarget {
  abortAttempt(reason: unknown): void;
}

/**
 * Cancels one attempt. A plain object with one target instead of an AbortController or an
 * EventEmitter: creating either was a large item of the per-call overhead, and an attempt has
 * exactly one exchange to cut. The fetch wire links a real AbortController to it.
 */
export class AttemptSignal {
  aborted = false;
  reason: unknown = undefined;
  target: AttemptTarget | undefined = undefined;

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.target?.abortAttempt(this.reason);
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

export { DEFAULT_MAX_RESPONSE_BYTES } from './defaults.js';

/** undici's code for an answer whose headers exceed its parser's limit (both transports). */
const HEADERS_OVERFLOW = 'UND_ERR_HEADERS_OVERFLOW';

/** The origin a redirect points to, resolved against the request; undefined when there is none. */
function redirectTarget(location: string | undefined, base: string): string | undefined {
  if (!location) return undefined;
  try {
    const origin = new URL(location, base).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

const proxyVariables = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

function proxyConfigured(): boolean {
  if (typeof process === 'undefined') return false;
  return proxyVariables.some((name) => Boolean(process.env[name]));
}

/** Raw header pairs as lower-cased names; repeated headers joined with ', ' (values latin1, as undici reads them). */
function readHeaders(raw: ReadonlyArray<Buffer | string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = String(raw[index]).toLowerCase();
    const item = raw[index + 1] as Buffer | string | string[];
    const value = typeof item === 'string' ? item : Array.isArray(item) ? item.join(', ') : item.toString('latin1');
    const previous = out[name] !== undefined && Object.hasOwn(out, name) ? out[name] : undefined;
    const joined = previous === undefined ? value : `${previous}, ${value}`;
    // defineProperty keeps a `__proto__` header a plain own property.
    if (name === '__proto__') Object.defineProperty(out, name, { value: joined, enumerable: true, configurable: true, writable: true });
    else out[name] = joined;
  }
  return out;
}

const BOM = 0xfeff;

/** UTF-8 text of the body chunks, a leading byte-order mark dropped (as undici's `body.text()` does). */
function decodeBody(chunks: Buffer[], length: number): string {
  if (length === 0) return '';
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === BOM ? text.slice(1) : text;
}

/**
 * One exchange as an undici dispatch handler: the body is gathered as buffers and decoded once,
 * without the Readable stream, async resource and promise plumbing of `dispatcher.request()`,
 * which cost more CPU per call than the rest of the client.
 */
class Exchange implements Dispatcher.DispatchHandler, AttemptTarget {
  readonly #request: WireRequest;
  readonly #signal: AttemptSignal;
  readonly #maxBytes: number;
  readonly #resolve: (response: WireResponse) => void;
  readonly #reject: (error: unknown) => void;
  #abort: ((reason?: Error) => void) | undefined;
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Buffer[] = [];
  #length = 0;

  constructor(request: WireRequest, maxBytes: number, resolve: (response: WireResponse) => void, reject: (error: unknown) => void) {
    const signal = request.signal;
    this.#request = request;
    this.#signal = signal;
    this.#maxBytes = maxBytes;
    this.#resolve = resolve;
    this.#reject = reject;
    signal.target = this;
  }

  abortAttempt(reason: unknown): void {
    // Before onConnect there is nothing to cut yet; onConnect sees the signal aborted.
    this.#abort?.(reason as Error);
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.#signal.aborted) abort(this.#signal.reason as Error);
    else this.#abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true;
    this.#status = statusCode;
    const headers = readHeaders(rawHeaders);
    this.#headers = headers;
    // Never followed (the dispatch has no redirect handling): the answer is refused unread.
    if (isRedirect(statusCode)) {
      const request = this.#request;
      return this.#refuse(new RedirectError(statusCode, redirectTarget(headers['location'], request.origin + request.path)));
    }
    // Content-Length is 1*DIGIT (RFC 9110 8.6); a malformed one is left to the byte count.
    const declared = parseDigits(headers['content-length']);
    if (declared !== undefined && declared > this.#maxBytes) {
      return this.#refuse(new ResponseTooLargeError('body', statusCode, this.#maxBytes));
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#length += chunk.length;
    // Counted as it arrives: a body without Content-Length, or longer than it, is cut here.
    if (this.#length > this.#maxBytes) return this.#refuse(new ResponseTooLargeError('body', this.#status, this.#maxBytes));
    this.#chunks.push(chunk);
    return true;
  }

  /** Cuts the exchange; undici reports `error` to onError, which rejects with it. */
  #refuse(error: Error): false {
    this.#chunks = [];
    this.#abort?.(error);
    return false;
  }

  onComplete(): void {
    this.#signal.target = undefined;
    this.#resolve({ status: this.#status, headers: this.#headers, body: decodeBody(this.#chunks, this.#length) });
  }

  onError(error: Error): void {
    this.#signal.target = undefined;
    this.#chunks = [];
    // Headers over the parser's limit will be as large on a retry: not a connection hiccup.
    if ((error as { code?: unknown }).code === HEADERS_OVERFLOW) this.#reject(new ResponseTooLargeError('headers', undefined, undefined));
    else this.#reject(error);
  }
}

/**
 * undici's `dispatcher.dispatch()` with plain objects: no URL parsing (so an encoded `%2E%2E`
 * segment stays data), no WHATWG Headers, no body stream. The keep-alive Agent is created on
 * the first call.
 */
export class UndiciWire implements Wire {
  #dispatcher: Dispatcher | undefined;
  readonly #owned: boolean;
  readonly #maxBytes: number;
  #closed = false;

  constructor(dispatcher: Dispatcher | undefined, maxResponseBytes: number) {
    this.#dispatcher = dispatcher;
    this.#owned = dispatcher === undefined;
    this.#maxBytes = maxResponseBytes;
  }

  send(request: WireRequest): Promise<WireResponse> {
    // A retry scheduled before close() must not open a fresh pool behind the caller's back.
    if (this.#closed) return Promise.reject(new ClientClosedError('the client is closed'));
    const dispatcher = (this.#dispatcher ??= proxyConfigured()
      ? new EnvHttpProxyAgent({ keepAliveTimeout: 10_000 })
      : new Agent({ keepAliveTimeout: 10_000 }));
    return new Promise<WireResponse>((resolve, reject) => {
      dispatcher.dispatch(
        {
          origin: request.origin,
          path: request.path,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
          // Switches off a redirect interceptor composed into a caller-given dispatcher.
          maxRedirections: 0,
        } as Dispatcher.DispatchOptions,
        new Exchange(request, this.#maxBytes, resolve, reject),
      );
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const dispatcher = this.#dispatcher;
    if (!dispatcher || !this.#owned) return;
    this.#dispatcher = undefined;
    await dispatcher.destroy();
  }
}

function ignore(): void {}

const utf8 = new TextDecoder();

/**
 * The body as UTF-8 text (a leading byte-order mark dropped, as `text()` does), read chunk by
 * chunk with a counter: past `maxBytes` the stream is cancelled and nothing more is buffered.
 */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const stream = response.body;
  if (stream === null) return '';
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      reader.cancel().catch(ignore);
      throw new ResponseTooLargeError('body', response.status, maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return utf8.decode(chunks[0]);
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8.decode(bytes);
}

/** A caller-supplied WHATWG fetch (msw, Bun, Deno, edge runtimes). */
export class FetchWire implements Wire {
  readonly #fetch: typeof globalThis.fetch;
  readonly #maxBytes: number;

  constructor(fetchImpl: typeof globalThis.fetch, maxResponseBytes: number) {
    this.#fetch = fetchImpl;
    this.#maxBytes = maxResponseBytes;
  }

  async send(request: WireRequest): Promise<WireResponse> {
    const controller = new AbortController();
    const attempt = request.signal;
    if (attempt.aborted) controller.abort(attempt.reason);
    else attempt.target = { abortAttempt: (reason) => controller.abort(reason) };
    try {
      return await this.#exchange(request, controller.signal);
    } finally {
      attempt.target = undefined;
    }
  }

  async #exchange(request: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    let response: Response;
    try {
      response = await this.#fetch(request.origin + request.path, {
        method: request.method,
        headers: request.headers,
        body: request.body ?? null,
        // Never followed: the credentials and the token stay with the configured origin.
        redirect: 'manual',
        signal,
      });
    } catch (error) {
      if (errorCode(error) === HEADERS_OVERFLOW) throw new ResponseTooLargeError('headers', undefined, undefined);
      throw error;
    }
    const status = response.status;
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // A browser-like fetch hands back an opaque redirect (status 0, no headers); a fetch that
    // followed the redirect despite 'manual' is refused too, its answer unread.
    if (isRedirect(status) || response.type === 'opaqueredirect' || response.redirected) {
      response.body?.cancel().catch(ignore);
      const target = response.redirected
        ? redirectTarget(response.url, request.origin)
        : redirectTarget(headers['location'], request.origin + request.path);
      throw new RedirectError(isRedirect(status) ? status : 0, target);
    }
    // Content-Length is 1*DIGIT (RFC 9110 8.6); a malformed one is left to the byte count.
    const declared = parseDigits(headers['content-length']);
    if (declared !== undefined && declared > this.#maxBytes) {
      response.body?.cancel().catch(ignore);
      throw new ResponseTooLargeError('body', status, this.#maxBytes);
    }
    return { status, headers, body: await readCapped(response, this.#maxBytes) };
  }

  async close(): Promise<void> {}
}

/** Error codes proving the request never left this machine, so even a non-idempotent write may be retried. */
const notSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

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
