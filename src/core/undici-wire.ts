/**
 * The wire under Node: undici's dispatcher, driven directly. Only the Node build of the client
 * imports this module (through default-wire.ts); the build for Workers and edge runtimes leaves
 * undici out entirely.
 */
import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { endError } from './call-end.js';
import { RedirectError, ResponseTooLargeError } from './errors.js';
import { parseDigits } from '../shared/http-grammar.js';
import {
  type AttemptSignal,
  type AttemptTarget,
  HEADERS_OVERFLOW,
  type Wire,
  type WireRequest,
  type WireResponse,
  isRedirect,
  redirectTarget,
} from './wire.js';

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
    if (this.#closed) return Promise.reject(endError({ reason: 'client_closed', route: undefined }));
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
