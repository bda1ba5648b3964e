/** Fixed-window rate limits of spec part 8: account-wide and per endpoint. */
import type { MiddlewareHandler } from 'hono';
import type { SandboxContext, SandboxEnv } from '../context.js';
import { matchesPath } from '../paths.js';

export const ACCOUNT_LIMIT = 120;

/** Per-endpoint limits per window, keyed "METHOD template" as the client keys them. */
export const ENDPOINT_LIMITS: Readonly<Record<string, number>> = {
  'POST /api/v1.1/sims/{iccid}/renew-number': 20,
  'POST /api/v1.1/subscriptions/{iccid}/cancel': 30,
  'POST /api/v1.1/plans/purchase': 60,
  'POST /api/v3/plans/purchase': 60,
  'POST /api/v1.1/esim': 60,
  'POST /api/v1.1/sms': 30,
  'POST /api/v1.1/top-up': 20,
  'POST /api/v1.1/port-in/eligibility': 20,
  'POST /api/v1.1/team-members': 20,
  'POST /api/v1.1/webhooks/{id}/test': 10,
};

interface Window {
  startMs: number;
  count: number;
}

export interface RateLimiter {
  middleware: MiddlewareHandler<SandboxEnv>;
  reset(): void;
}

export function endpointKey(method: string, rawPath: string): string | undefined {
  for (const key of Object.keys(ENDPOINT_LIMITS)) {
    const [m, template] = key.split(' ') as [string, string];
    if (m === method && matchesPath(template, rawPath)) return key;
  }
  return undefined;
}

export function createRateLimiter(ctx: SandboxContext): RateLimiter {
  const windows = new Map<string, Window>();
  const windowMs = (): number => ctx.options.rateLimitWindowMs;

  const current = (key: string, nowMs: number): Window => {
    let w = windows.get(key);
    if (!w || nowMs >= w.startMs + windowMs()) {
      w = { startMs: nowMs, count: 0 };
      windows.set(key, w);
    }
    return w;
  };

  const middleware: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    if (!ctx.options.rateLimit) return next();
    const nowMs = ctx.clock.nowMs();
    const endpoint = endpointKey(c.req.method, c.get('rawPath'));
    const buckets: Array<{ key: string; limit: number; window: Window }> = [
      { key: 'account', limit: ACCOUNT_LIMIT, window: current('account', nowMs) },
    ];
    if (endpoint) buckets.unshift({ key: endpoint, limit: ENDPOINT_LIMITS[endpoint] ?? ACCOUNT_LIMIT, window: current(endpoint, nowMs) });

    const exceeded = buckets.filter((b) => b.window.count >= b.limit);
    if (exceeded.length > 0) {
      const waitMs = Math.max(...exceeded.map((b) => b.window.startMs + windowMs() - nowMs));
      ctx.counters.bump('rateLimit.throttled');
      // spec part 8 rule 1: Retry-After, and no X-RateLimit headers on a 429
      const res = ctx.fail(c, 429, 'RATE_LIMITED', 'Too many requests, slow down and retry later');
      res.headers.set('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
      return res;
    }
    for (const b of buckets) b.window.count += 1;
    // Report the tighter bucket: the one with the fewest requests left.
    const shown = buckets.reduce((a, b) => (b.limit - b.window.count < a.limit - a.window.count ? b : a));
    await next();
    // A 429 from further in (a forced or injected one) keeps spec part 8 rule 1 too.
    if (c.res.type === 'error' || c.res.status === 429) return;
    c.res.headers.set('X-RateLimit-Limit', String(shown.limit));
    c.res.headers.set('X-RateLimit-Remaining', String(Math.max(0, shown.limit - shown.window.count)));
    c.res.headers.set('X-RateLimit-Reset', String(Math.max(0, Math.ceil((shown.window.startMs + windowMs() - nowMs) / 1000))));
  };

  return { middleware, reset: () => windows.clear() };
}
