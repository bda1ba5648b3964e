/**
 * Idempotency-Key handling on every write (spec part 8 rule 4; the 409 codes are part 7's): a replay of the
 * same key, body and route answers the stored response verbatim with Idempotency-Replayed: true.
 * The spec gives keys no lifetime; the sandbox keeps one for `limits.idempotencyKeyTtlMs` of
 * sandbox time (24 h, the common convention) and at most `limits.maxIdempotencyKeys`, the oldest
 * forgotten first, so a long run cannot grow the store without bound.
 */
import type { MiddlewareHandler } from 'hono';
import type { SandboxContext, SandboxEnv } from '../context.js';

interface StoredResponse {
  status: number;
  headers: Array<[string, string]>;
  body: ArrayBuffer;
}

interface Entry {
  /** Sandbox-clock time the key was first seen; it expires idempotencyKeyTtlMs later. */
  createdMs: number;
  route: string;
  body: string;
  response: StoredResponse | null;
}

export interface IdempotencyStore {
  middleware: MiddlewareHandler<SandboxEnv>;
  reset(): void;
  /** Keys held now (GET /_sandbox/stats shows it). */
  size(): number;
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
  // Insertion order is first-seen order, so the oldest and the expired sit at the front.
  const entries = new Map<string, Entry>();

  /** Drops expired keys, then the oldest while the store is full, before a new key goes in. */
  const makeRoom = (nowMs: number): void => {
    const { idempotencyKeyTtlMs, maxIdempotencyKeys } = ctx.options.limits;
    for (const [key, entry] of entries) {
      if (nowMs - entry.createdMs < idempotencyKeyTtlMs && entries.size < maxIdempotencyKeys) break;
      entries.delete(key);
      ctx.counters.bump(nowMs - entry.createdMs < idempotencyKeyTtlMs ? 'idempotency.evicted' : 'idempotency.expired');
    }
  };

  const middleware: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    const key = c.req.header('idempotency-key');
    const method = c.req.method;
    const rawPath = c.get('rawPath');
    if (key === undefined || method === 'GET' || method === 'HEAD' || UNKEYED.has(`${method} ${rawPath}`)) return next();

    const route = `${method} ${rawPath}`;
    const body = canonical(c.get('rawBody'));
    const nowMs = ctx.clock.nowMs();
    let existing = entries.get(key);
    if (existing && nowMs - existing.createdMs >= ctx.options.limits.idempotencyKeyTtlMs) {
      entries.delete(key);
      ctx.counters.bump('idempotency.expired');
      existing = undefined;
    }
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

    makeRoom(nowMs);
    const entry: Entry = { createdMs: nowMs, route, body, response: null };
    entries.set(key, entry);
    // Forget only this entry: the key may have been evicted and taken anew meanwhile.
    const forget = (): void => {
      if (entries.get(key) === entry) entries.delete(key);
    };
    try {
      await next();
    } catch (error) {
      forget();
      throw error;
    }
    const res = c.res;
    if (res.type === 'error' || !storable(res.status)) {
      forget();
      return;
    }
    entry.response = {
      status: res.status,
      headers: [...res.headers.entries()],
      body: await res.clone().arrayBuffer(),
    };
  };

  return { middleware, reset: () => entries.clear(), size: () => entries.size };
}
