/**
 * Records partner-API requests for GET /_sandbox/requests and the inspector page, with the body
 * as the body reader (middleware/body.ts) read it: a ring buffer of REQUEST_LOG_CAPACITY entries, bodies capped and
 * credentials masked, so a long run keeps a bounded log.
 */
import type { MiddlewareHandler } from 'hono';
import { parseDigits, parseRetryAfter } from '../../shared/http-grammar.js';
import type { SandboxContext, SandboxCtx, SandboxEnv } from '../context.js';
import { maskUrlCredentials } from '../mask-url.js';
import { ACCOUNT_LIMIT, endpointKey } from './rate-limit.js';

/** Secrets never leave the sandbox in the log: no credential is logged. */
const REDACTED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'set-cookie']);
/** Credential fields wherever they sit: the token exchange's key/secret and token, a webhook's credential. */
const REDACTED_BODY_FIELDS = new Set(['secret', 'key', 'signingSecret', 'password', 'token', 'username', 'access_token']);
/** A webhook registration's `authentication` holds the partner's receiver credential (spec part 5 rule 8). */
const AUTH_MEMBERS_SHOWN = new Set(['type', 'headerName']);
const REDACTED = '[REDACTED]';
/**
 * Depth to which a body is copied into the log. Deeper members are replaced whole: the copy stays
 * bounded in stack and size whatever the nesting, and nothing deeper can carry an unmasked secret.
 */
const LOG_BODY_MAX_DEPTH = 32;
const TOO_DEEP = `[REDACTED: nested deeper than ${LOG_BODY_MAX_DEPTH} levels]`;

/** A masked copy of a parsed JSON value; recursion is bounded by LOG_BODY_MAX_DEPTH. */
export function redactBody(value: unknown, depth = 0, insideAuthentication = false): unknown {
  // A receiver URL (`webhookUrls.smsUrl`, a voice-quality `url`) may carry a password in its user-info.
  if (typeof value === 'string') return maskUrlCredentials(value);
  if (!value || typeof value !== 'object') return value;
  if (depth >= LOG_BODY_MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item: unknown) => redactBody(item, depth + 1));
  // fromEntries defines own members, so a "__proto__" key stays a member of the copy.
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k,
      REDACTED_BODY_FIELDS.has(k) || (insideAuthentication && !AUTH_MEMBERS_SHOWN.has(k))
        ? REDACTED
        : redactBody(v, depth + 1, k === 'authentication'),
    ]),
  );
}

function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = REDACTED_HEADERS.has(name) ? REDACTED : maskUrlCredentials(value);
  });
  return out;
}

/** Entries kept; the oldest is dropped when a new one arrives past this. */
export const REQUEST_LOG_CAPACITY = 2000;
/** Bytes of a request or answer body kept per entry; a larger body is logged as a size note. */
export const LOG_BODY_LIMIT_BYTES = 16 * 1024;

/** The rate-limit state an answer reported in its headers. */
export interface LoggedRateLimit {
  /** The limiter window the answer reports: 'account' or an endpoint key such as 'POST /api/v1.1/sms'. */
  window: string | null;
  /** `X-RateLimit-Limit`. */
  limit: number | null;
  /** `X-RateLimit-Remaining`. */
  remaining: number | null;
  /** `X-RateLimit-Reset`, seconds until the window ends. */
  resetSeconds: number | null;
  /** Seconds the 429 answer asked to wait (Retry-After); null on other answers. */
  retryAfterSeconds: number | null;
}

/** One request as the sandbox's request log keeps it (`sandbox.requests()`, GET /_sandbox/requests), credentials masked. */
export interface LoggedRequest {
  /** Increasing from 1 within a sandbox; not reused after a clear. */
  id: number;
  method: string;
  /** The request-target's path as received, percent-encoding intact. */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  /**
   * Parsed JSON body with credential fields redacted at any depth (members nested deeper than 32
   * levels are replaced whole); null when there was none; a size note when it was not JSON or was
   * larger than LOG_BODY_LIMIT_BYTES.
   */
  body: unknown;
  receivedAt: string;
  /** Status of the answer; null while it runs; 0 when the socket was reset without one. */
  status: number | null;
  /** Real milliseconds from receiving the request to the answer; null while it runs. */
  latencyMs: number | null;
  /** From the X-RateLimit-* or Retry-After headers of the answer; null when it had none. */
  rateLimit: LoggedRateLimit | null;
  /** The Idempotency-Key sent, and whether the answer was a stored replay. */
  idempotency: { key: string; replayed: boolean } | null;
  /** Set when a rule of POST /_sandbox/force answered (or delayed) this request. */
  forced: { ruleId: string; status: number | null; delayMs: number | null; reset: boolean } | null;
  /** The answer as sent, masked like the request; null while it runs or when the socket was reset. */
  response: { headers: Record<string, string>; body: unknown } | null;
}

/** What the log needs to see of a forced rule. */
interface ForcedRuleView {
  id: string;
  status?: number | undefined;
  delayMs?: number | undefined;
  reset?: boolean | undefined;
  remaining: number;
}

interface RequestLogTally {
  /** Requests logged since the last clear, including those the ring buffer has dropped. */
  total: number;
  rateLimited: number;
  serverErrors: number;
}

/** The fields of an entry without its headers and bodies: what the inspector's list shows. */
export type LoggedRequestSummary = Pick<
  LoggedRequest,
  'id' | 'method' | 'path' | 'status' | 'latencyMs' | 'receivedAt' | 'rateLimit' | 'idempotency' | 'forced'
>;

export interface RequestLog {
  middleware: MiddlewareHandler<SandboxEnv>;
  /** Masked copies of the kept entries, oldest first. */
  entries(): LoggedRequest[];
  /** A masked copy of the kept entry with that id, or undefined once the ring buffer dropped it. */
  get(id: number): LoggedRequest | undefined;
  /** The newest `count` kept entries, oldest first, without headers and bodies. */
  latest(count: number): LoggedRequestSummary[];
  tally(): RequestLogTally;
  clear(): void;
  /**
   * Wraps the force middleware so the entry of a request a forced rule answered is marked. The
   * rule is taken synchronously when the middleware starts, so comparing the rules before and
   * after that first step tells which rule, with no race between concurrent requests.
   */
  markForced(force: { middleware: MiddlewareHandler<SandboxEnv>; list(): ForcedRuleView[] }): MiddlewareHandler<SandboxEnv>;
  /** Called when an entry is added and when its answer is recorded; one listener (the inspector). */
  onChange(listener: ((entry: LoggedRequestSummary) => void) | null): void;
}

/**
 * What the ring buffer holds: bodies as the text received or sent (already capped), masked only
 * when an entry is read. Text costs a fraction of the memory of parsed objects and nothing is
 * parsed twice on the request path; the masked view is the only one that ever leaves.
 */
interface StoredEntry extends LoggedRequestSummary {
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: StoredBody;
  response: { headers: Record<string, string>; body: StoredBody } | null;
}

/** JSON text to parse and mask on read, other text shown as is, or a note (size, not JSON). */
type StoredBody = { json: string } | { text: string } | { note: string } | null;

function byteLength(text: string): number {
  // A string of n UTF-16 units is at most 3n bytes of UTF-8: skip the exact count for short bodies.
  return text.length * 3 <= LOG_BODY_LIMIT_BYTES ? text.length : Buffer.byteLength(text);
}

function tooLarge(bytes: number): StoredBody {
  return { note: `[${bytes} bytes, over the log's ${LOG_BODY_LIMIT_BYTES}-byte limit]` };
}

/**
 * A request body for the log, from what the body's reader left in the context: the text and
 * whether it parsed, or a note saying why it was not parsed (unparsed text cannot be redacted
 * field by field, so only the note is shown).
 */
function storedRequestBody(rawBody: string, parsed: boolean, note: string | null): StoredBody {
  if (note !== null) return { note };
  if (!parsed) return null;
  const bytes = byteLength(rawBody);
  return bytes > LOG_BODY_LIMIT_BYTES ? tooLarge(bytes) : { json: rawBody };
}

/** An answer body for the log: JSON is masked like a request body; other text is kept as text. */
function storedAnswerBody(text: string, contentType: string): StoredBody {
  if (text === '') return null;
  const bytes = byteLength(text);
  if (bytes > LOG_BODY_LIMIT_BYTES) return tooLarge(bytes);
  return /\bjson\b/i.test(contentType) ? { json: text } : { text };
}

function maskedBody(body: StoredBody): unknown {
  if (body === null) return null;
  if ('note' in body) return body.note;
  if ('text' in body) return body.text;
  try {
    return redactBody(JSON.parse(body.json));
  } catch {
    return `[not JSON: ${Buffer.byteLength(body.json)} bytes]`;
  }
}

function view(entry: StoredEntry): LoggedRequest {
  return {
    ...entry,
    body: maskedBody(entry.body),
    response: entry.response && { headers: { ...entry.response.headers }, body: maskedBody(entry.response.body) },
    rateLimit: entry.rateLimit && { ...entry.rateLimit },
    idempotency: entry.idempotency && { ...entry.idempotency },
    forced: entry.forced && { ...entry.forced },
  };
}

function summary(entry: StoredEntry): LoggedRequestSummary {
  const { id, method, path, status, latencyMs, receivedAt, rateLimit, idempotency, forced } = entry;
  return { id, method, path, status, latencyMs, receivedAt, rateLimit, idempotency, forced };
}

/** A header read as a client reads it (1*DIGIT, src/shared/http-grammar.ts); null when absent or malformed. */
function numberHeader(headers: Headers, name: string): number | null {
  return parseDigits(headers.get(name) ?? undefined) ?? null;
}

/**
 * The limiter reports the tighter of its buckets; the account limit tells the account bucket
 * apart. Retry-After in either of its forms, seconds or an HTTP-date (a forced answer may send one).
 */
function rateLimitOf(method: string, rawPath: string, headers: Headers): LoggedRateLimit | null {
  const limit = numberHeader(headers, 'x-ratelimit-limit');
  const retryAfterSeconds = parseRetryAfter(headers.get('retry-after') ?? undefined, Date.now()) ?? null;
  if (limit === null && retryAfterSeconds === null) return null;
  const window = limit === null ? null : limit === ACCOUNT_LIMIT ? 'account' : (endpointKey(method, rawPath) ?? null);
  return {
    window,
    limit,
    remaining: numberHeader(headers, 'x-ratelimit-remaining'),
    resetSeconds: numberHeader(headers, 'x-ratelimit-reset'),
    retryAfterSeconds,
  };
}

export function createRequestLog(ctx: SandboxContext, rawPathOf: (request: Request) => string): RequestLog {
  let ring: Array<StoredEntry | undefined> = new Array<StoredEntry | undefined>(REQUEST_LOG_CAPACITY);
  /** Index of the next slot to write; entries live in [next - size, next). */
  let next = 0;
  let size = 0;
  let nextId = 1;
  let tally: RequestLogTally = { total: 0, rateLimited: 0, serverErrors: 0 };
  let listener: ((entry: LoggedRequestSummary) => void) | null = null;
  const inFlight = new WeakMap<Request, StoredEntry>();

  const push = (entry: StoredEntry): void => {
    ring[next] = entry;
    next = (next + 1) % REQUEST_LOG_CAPACITY;
    size = Math.min(size + 1, REQUEST_LOG_CAPACITY);
    tally.total += 1;
  };

  const at = (offsetFromOldest: number): StoredEntry =>
    ring[(next - size + offsetFromOldest + REQUEST_LOG_CAPACITY) % REQUEST_LOG_CAPACITY] as StoredEntry;

  /**
   * Records the request body (read by then) and the answer. The answer's body is read once and
   * handed on in a new Response, not cloned (a clone tees the stream).
   */
  const finish = async (entry: StoredEntry, c: SandboxCtx, res: Response, startedAt: number): Promise<Response | undefined> => {
    // The body reader (middleware/body.ts) ran after this middleware, or never when the request
    // was refused first (no token, over the cap): its note stands in for a body it did not keep.
    entry.body = storedRequestBody(c.get('rawBody') ?? '', c.get('body') !== undefined, c.get('bodyNote') ?? null);
    let replacement: Response | undefined;
    if (res.type === 'error') {
      entry.status = 0;
    } else {
      entry.status = res.status;
      const contentLength = numberHeader(res.headers, 'content-length');
      let body: StoredBody = null;
      if (contentLength !== null && contentLength > LOG_BODY_LIMIT_BYTES) {
        body = tooLarge(contentLength);
      } else if (res.body !== null) {
        const text = await res.text();
        replacement = new Response(text, res);
        body = storedAnswerBody(text, res.headers.get('content-type') ?? '');
      }
      entry.response = { headers: redactHeaders(res.headers), body };
      entry.rateLimit = rateLimitOf(entry.method, entry.path, res.headers);
      if (entry.idempotency) entry.idempotency.replayed = res.headers.get('idempotency-replayed') === 'true';
    }
    entry.latencyMs = Math.round((performance.now() - startedAt) * 100) / 100;
    if (entry.status === 429) tally.rateLimited += 1;
    if (entry.status >= 500) tally.serverErrors += 1;
    listener?.(entry);
    return replacement;
  };

  const middleware: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    const startedAt = performance.now();
    const rawPath = rawPathOf(c.req.raw);
    c.set('rawPath', rawPath);
    c.set('tier', null);
    if (rawPath === '/_sandbox' || rawPath.startsWith('/_sandbox/')) return next();

    const url = new URL(c.req.url);
    const query: Record<string, string | string[]> = {};
    for (const name of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(name);
      const masked = values.map(maskUrlCredentials);
      query[name] = masked.length === 1 ? (masked[0] ?? '') : masked;
    }
    const idempotencyKey = c.req.raw.headers.get('idempotency-key');
    const entry: StoredEntry = {
      id: nextId++,
      method: c.req.method,
      path: rawPath,
      query,
      headers: redactHeaders(c.req.raw.headers),
      body: null,
      receivedAt: ctx.nowIso(),
      status: null,
      latencyMs: null,
      rateLimit: null,
      idempotency: idempotencyKey === null ? null : { key: idempotencyKey, replayed: false },
      forced: null,
      response: null,
    };
    push(entry);
    inFlight.set(c.req.raw, entry);
    listener?.(entry);

    await next();
    const replacement = await finish(entry, c, c.res, startedAt);
    if (replacement) c.res = replacement;
  };

  const markForced: RequestLog['markForced'] = (force) => async (c, next) => {
    const before = force.list();
    if (before.length === 0) return force.middleware(c, next);
    const running = force.middleware(c, next);
    const after = new Map(force.list().map((rule) => [rule.id, rule.remaining]));
    const taken = before.find((rule) => (after.get(rule.id) ?? 0) < rule.remaining);
    const entry = inFlight.get(c.req.raw);
    if (taken && entry) {
      entry.forced = { ruleId: taken.id, status: taken.status ?? null, delayMs: taken.delayMs ?? null, reset: taken.reset === true };
      listener?.(entry);
    }
    return running;
  };

  return {
    middleware,
    entries: () => Array.from({ length: size }, (_, i) => view(at(i))),
    get(id) {
      if (size === 0) return undefined;
      const offset = id - at(0).id;
      if (!Number.isInteger(offset) || offset < 0 || offset >= size) return undefined;
      const found = at(offset);
      return found.id === id ? view(found) : undefined;
    },
    latest(count) {
      const n = Math.min(count, size);
      return Array.from({ length: n }, (_, i) => summary(at(size - n + i)));
    },
    tally: () => ({ ...tally }),
    clear() {
      ring = new Array<StoredEntry | undefined>(REQUEST_LOG_CAPACITY);
      next = 0;
      size = 0;
      tally = { total: 0, rateLimited: 0, serverErrors: 0 };
    },
    markForced,
    onChange(fn) {
      listener = fn;
    },
  };
}
