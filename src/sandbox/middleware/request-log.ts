/** Records partner-API requests for GET /_sandbox/requests; the body is read later, by middleware/body.ts. */
import type { MiddlewareHandler } from 'hono';
import type { SandboxContext, SandboxEnv } from '../context.js';

export interface LoggedRequest {
  method: string;
  /** The request-target's path as received, percent-encoding intact. */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  /** Parsed JSON body with credential fields redacted at any depth; null when there was none; a size note when it was not JSON. */
  body: unknown;
  receivedAt: string;
  status: number | null;
}

export interface RequestLog {
  middleware: MiddlewareHandler<SandboxEnv>;
  entries(): LoggedRequest[];
  clear(): void;
}

/** Secrets never leave the sandbox in the log (team rule: no credentials in logs). */
const REDACTED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
/** Credential fields wherever they sit: the token exchange's key/secret, a webhook's credential. */
const REDACTED_BODY_FIELDS = new Set(['secret', 'key', 'signingSecret', 'password', 'token', 'username', 'access_token']);
/** A webhook registration's `authentication` holds the partner's receiver credential (spec part 5 rule 8). */
const AUTH_MEMBERS_SHOWN = new Set(['type', 'headerName']);
const REDACTED = '[REDACTED]';

function redactBody(value: unknown, insideAuthentication = false): unknown {
  if (Array.isArray(value)) return value.map((item) => redactBody(item));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => {
      if (REDACTED_BODY_FIELDS.has(k) || (insideAuthentication && !AUTH_MEMBERS_SHOWN.has(k))) return [k, REDACTED];
      return [k, redactBody(v, k === 'authentication')];
    }),
  );
}

export function createRequestLog(ctx: SandboxContext, rawPathOf: (request: Request) => string): RequestLog {
  let log: LoggedRequest[] = [];

  const middleware: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    const rawPath = rawPathOf(c.req.raw);
    c.set('rawPath', rawPath);
    c.set('tier', null);
    if (rawPath.startsWith('/_sandbox/')) return next();

    const url = new URL(c.req.url);
    const query: Record<string, string | string[]> = {};
    for (const name of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(name);
      query[name] = values.length === 1 ? (values[0] ?? '') : values;
    }
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => {
      headers[name] = REDACTED_HEADERS.has(name) ? REDACTED : value;
    });
    const entry: LoggedRequest = {
      method: c.req.method,
      path: rawPath,
      query,
      headers,
      // Filled in once the body has been read, after the bearer check; null when it never was.
      body: null,
      receivedAt: ctx.nowIso(),
      status: null,
    };
    log.push(entry);
    if (log.length > 5000) log = log.slice(-5000);

    await next();
    const body: unknown = c.get('body');
    entry.body = c.get('bodyNote') ?? (body === undefined ? null : redactBody(body));
    entry.status = c.res.type === 'error' ? 0 : c.res.status;
  };

  return { middleware, entries: () => log.map((e) => ({ ...e })), clear: () => void (log = []) };
}
