/**
 * Idempotency-Key handling on every write (spec part 7 and part 8 rule 4): a replay of the
 * same key, body and route answers the stored response verbatim with Idempotency-Replayed: true.
 */
import type { MiddlewareHandler } from 'hono';
import type { SandboxContext, SandboxEnv } from '../context.js';

interface StoredResponse {
  status: number;
  headers: Array<[string, string]>;
  body: ArrayBuffer;
}

interface Entry {
  route: string;
  body: string;
  response: StoredResponse | null;
}

export interface IdempotencyStore {
  middleware: MiddlewareHandler<SandboxEnv>;
  reset(): void;
}

/** Reads are not keyed, nor is the credential exchange or the eligibility check. */
const UNKEYED = new Set(['POST /api/v1.1/auth/token', 'POST /api/v1.1/port-in/eligibility']);

function canonical(raw: string): string {
  if (raw.trim() === '') return '';
  try {
    return JSON.stringify(sortKeys(JSON.parse(raw)));
  } catch {
    return raw;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

/** Answers a retry should not see again: server faults, auth and throttling are not outcomes. */
function storable(status: number): boolean {
  return status < 500 && status !== 401 && status !== 429;
}

export function createIdempotency(ctx: SandboxContext): IdempotencyStore {
  const entries = new Map<string, Entry>();

  const middleware: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    const key = c.req.header('idempotency-key');
    const method = c.req.method;
    const rawPath = c.get('rawPath');
    if (key === undefined || method === 'GET' || method === 'HEAD' || UNKEYED.has(`${method} ${rawPath}`)) return next();

    const route = `${method} ${rawPath}`;
    const body = canonical(c.get('rawBody'));
    const existing = entries.get(key);
    if (existing) {
      if (existing.route !== route || existing.body !== body) {
        return ctx.fail(c, 409, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key was already used with a different request');
      }
      if (!existing.response) {
        return ctx.fail(c, 409, 'CONFLICT', 'A request with this Idempotency-Key is still in progress');
      }
      ctx.counters.bump('idempotency.replayed');
      const headers = new Headers(existing.response.headers);
      headers.set('Idempotency-Replayed', 'true');
      return new Response(existing.response.body.slice(0), { status: existing.response.status, headers });
    }

    const entry: Entry = { route, body, response: null };
    entries.set(key, entry);
    try {
      await next();
    } catch (error) {
      entries.delete(key);
      throw error;
    }
    const res = c.res;
    if (res.type === 'error' || !storable(res.status)) {
      entries.delete(key);
      return;
    }
    entry.response = {
      status: res.status,
      headers: [...res.headers.entries()],
      body: await res.clone().arrayBuffer(),
    };
  };

  return { middleware, reset: () => entries.clear() };
}
