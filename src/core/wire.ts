import { ConnectionError, RedirectError, ResponseTooLargeError } from './errors.js';
import { parseDigits } from '../shared/http-grammar.js';
import type { Scrubber } from './redact.js';
import type { HttpMethod } from './types.js';

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

/** What `describe()` reports: which kind of wire a client sends with. */
export type WireKind = 'fetch' | 'undici';

export interface Wire {
  send(request: WireRequest): Promise<WireResponse>;
  /** Releases sockets the wire owns. */
  close(): Promise<void>;
}

export { DEFAULT_MAX_RESPONSE_BYTES } from './defaults.js';

/** undici's code for an answer whose headers exceed its parser's limit (both wires). */
export const HEADERS_OVERFLOW = 'UND_ERR_HEADERS_OVERFLOW';

/** The origin a redirect points to, resolved against the request; undefined when there is none. */
export function redirectTarget(location: string | undefined, base: string): string | undefined {
  if (!location) return undefined;
  try {
    const origin = new URL(location, base).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

function ignore(): void {}

const utf8 = new TextDecoder();

/**
 * The body as UTF-8 text (a leading byte-order mark dropped, as `text()` does), never longer than
 * `maxBytes`. A body whose length the headers declare within the limit, not content-coded (so the
 * bytes read are the bytes declared), is read in one call: in workerd reading it chunk by chunk
 * cost more CPU than parsing it (bench figure 12). Any other is read chunk by chunk with a
 * counter: past `maxBytes` the stream is cancelled and nothing more is buffered. Either way a
 * body past the limit is a ResponseTooLargeError.
 */
async function readCapped(response: Response, maxBytes: number, declaredWithin: boolean): Promise<string> {
  const stream = response.body;
  if (stream === null) return '';
  if (declaredWithin) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw new ResponseTooLargeError('body', response.status, maxBytes);
    return utf8.decode(bytes);
  }
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

/**
 * A WHATWG Response as the layers above the wire see an answer: a fetch's, or one a middleware
 * returned. A redirect is refused (never followed: the credentials and the token stay with the
 * configured origin), and the body is read up to `maxBytes`.
 */
export async function readAnswer(response: Response, url: string, maxBytes: number): Promise<WireResponse> {
  const status = response.status;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // A browser-like fetch hands back an opaque redirect (status 0, no headers); a fetch that
  // followed the redirect despite 'manual' is refused too, its answer unread.
  if (isRedirect(status) || response.type === 'opaqueredirect' || response.redirected) {
    response.body?.cancel().catch(ignore);
    const target = response.redirected ? redirectTarget(response.url, url) : redirectTarget(headers['location'], url);
    throw new RedirectError(isRedirect(status) ? status : 0, target);
  }
  // Content-Length is 1*DIGIT (RFC 9110 8.6); a malformed one is left to the byte count.
  const declared = parseDigits(headers['content-length']);
  if (declared !== undefined && declared > maxBytes) {
    response.body?.cancel().catch(ignore);
    throw new ResponseTooLargeError('body', status, maxBytes);
  }
  const coding = headers['content-encoding'];
  const declaredWithin = declared !== undefined && (coding === undefined || coding.trim().toLowerCase() === 'identity');
  return { status, headers, body: await readCapped(response, maxBytes, declaredWithin) };
}

/** A WHATWG fetch: the caller's (msw, a custom fetch), or the platform's outside Node (Bun, Deno, Workers, edge runtimes). */
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
    return readAnswer(response, request.origin + request.path, this.#maxBytes);
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
