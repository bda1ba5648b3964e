/** Token exchange and the bearer check (spec part 5). */
import type { MiddlewareHandler } from 'hono';
import type { SandboxContext, SandboxCtx, SandboxEnv, SandboxPlugin } from '../context.js';
import { matchesPath } from '../paths.js';
import type { TokenStore } from './tokens.js';

/** Routes answered without a bearer (spec part 5 rule 4), plus the exchange itself. */
const OPEN_ROUTES: ReadonlyArray<[string, string]> = [
  ['POST', '/api/v1.1/auth/token'],
  ['GET', '/api/v3/transactions/{transactionId}'],
  ['POST', '/api/v1.1/port-in/eligibility'],
];

/** spec part 5 rule 6: 403 FORBIDDEN when the account's plan lacks API access. */
function noApiAccess(ctx: SandboxContext, c: SandboxCtx): Response {
  ctx.counters.bump('account.forbidden');
  return ctx.fail(c, 403, 'FORBIDDEN', "The account's plan does not include API access");
}

export function bearerCheck(ctx: SandboxContext, tokens: TokenStore): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const rawPath = c.get('rawPath');
    const method = c.req.method;
    if (OPEN_ROUTES.some(([m, p]) => m === method && matchesPath(p, rawPath))) {
      c.set('tier', null);
      return next();
    }
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer (\S+)$/i.exec(header.trim());
    if (!match?.[1]) return ctx.fail(c, 401, 'UNAUTHORIZED', 'Missing or malformed bearer token');
    const tier = tokens.verify(match[1], ctx.clock.nowMs());
    if (!tier) return ctx.fail(c, 401, 'UNAUTHORIZED', 'Invalid or expired token');
    if (!ctx.account.apiAccess) return noApiAccess(ctx, c);
    c.set('tier', tier);
    return next();
  };
}

export function tokenRoute(tokens: TokenStore): SandboxPlugin {
  return (app, ctx) => {
    app.post('/api/v1.1/auth/token', (c) => {
      const body = ctx.readBody(c);
      const errors: string[] = [];
      const key = body?.key;
      const secret = body?.secret;
      if (typeof key !== 'string' || key === '') errors.push('key is required');
      if (typeof secret !== 'string' || secret === '') errors.push('secret is required');
      if (errors.length > 0 || typeof key !== 'string' || typeof secret !== 'string') {
        return ctx.fail(c, 400, 'VALIDATION_ERROR', 'key and secret are required', { validationErrors: errors });
      }
      const { credentials } = ctx;
      const tier =
        key === credentials.key && secret === credentials.secret
          ? 'admin'
          : key === credentials.standardKey && secret === credentials.standardSecret
            ? 'standard'
            : null;
      if (!tier) return ctx.fail(c, 401, 'UNAUTHORIZED', 'Invalid API key or secret');
      // Right credentials, but the plan cannot use the API: a token would be of no use, so the
      // exchange says so at once rather than issuing one that every call then refuses.
      if (!ctx.account.apiAccess) return noApiAccess(ctx, c);
      ctx.counters.bump('auth.token');
      const issued = tokens.issue(tier, ctx.clock.nowMs(), ctx.options.tokenTtlSeconds);
      return ctx.ok(
        c,
        {
          access_token: issued.accessToken,
          token_type: 'Bearer',
          expires_in: ctx.options.tokenTtlSeconds,
          expires_at: new Date(issued.expiresAtMs).toISOString(),
        },
        { meta: { timezone: 'UTC' } },
      );
    });
  };
}
