/**
 * The control API under /_sandbox/: for tests and demos, never part of the partner API.
 * No auth, no rate limit, not in the request log; answers are plain JSON (no envelope).
 */
import * as z from 'zod';
import { closedObject } from './closed-object.js';
import { LATEST_CLOCK_MS, MAX_TIME_SCALE } from './clock.js';
import { controlInvalid, controlIssues, parseControlBody } from './control-body.js';
import type { SandboxApp, SandboxContext } from './context.js';
import type { SandboxAccount } from './options.js';
import type { ForceRegistry } from './middleware/force.js';
import { forceRuleSchema } from './middleware/force.js';
import type { IdempotencyStore } from './middleware/idempotency.js';
import type { RequestLog } from './middleware/request-log.js';
import type { TokenStore } from './middleware/tokens.js';
import { hubOf } from './inspector/hub.js';
import { fixturesOf } from './state/fixtures.js';

export interface ControlDeps {
  force: ForceRegistry;
  log: RequestLog;
  tokens: TokenStore;
  idempotency: IdempotencyStore;
  reset: () => void;
}

/** The longest single jump of the clock: a century. The clock also never passes 9999-12-31. */
const MAX_ADVANCE_MS = 100 * 365.25 * 86_400_000;

export const timeControlSchema = closedObject({
  advanceMs: z.number().min(0).max(MAX_ADVANCE_MS).optional(),
  scale: z.number().positive().max(MAX_TIME_SCALE).optional(),
});
export const accountControlSchema = closedObject({
  apiAccess: z.boolean().optional(),
  customerMissing: z.boolean().optional(),
});
export const revokeControlSchema = closedObject({ token: z.string().min(1).optional() });

/** Forced answers always have a body, which these statuses cannot carry. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * A forced-answer rule, checked beyond the rule schema so that no stored rule can fail when it
 * applies: unknown members named, statuses that can carry a body, headers that are valid HTTP.
 */
export function checkForceRule(body: unknown): z.infer<typeof forceRuleSchema> | string[] {
  const issues: string[] = [];
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const allowed = Object.keys(forceRuleSchema.shape);
    const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
    if (unknown.length > 0) {
      issues.push(`body: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
    }
  }
  const parsed = forceRuleSchema.safeParse(body);
  if (!parsed.success) return [...issues, ...controlIssues(parsed.error)];
  const rule = parsed.data;
  if (rule.status !== undefined && (rule.status < 200 || NULL_BODY_STATUSES.has(rule.status))) {
    issues.push('status: must be 200..599 and not 204, 205 or 304 (a forced answer has a body)');
  }
  try {
    new Headers(rule.headers ?? {});
  } catch {
    issues.push('headers: each name must be an HTTP token and each value free of control characters');
  }
  return issues.length > 0 ? issues : rule;
}

/** What POST /_sandbox/time answers and `sandbox.advanceTime()` returns. */
export interface SandboxTime {
  /** ISO timestamp of the sandbox clock. */
  now: string;
  /** Sandbox ms per real ms. */
  scale: number;
}

export const timeView = (ctx: SandboxContext): SandboxTime => ({ now: ctx.nowIso(), scale: ctx.clock.scale });

/** Applies a checked time body; the problems instead when the jump would pass the clock's end. */
export function applyTime(ctx: SandboxContext, input: z.output<typeof timeControlSchema>): string[] {
  const roomMs = LATEST_CLOCK_MS - ctx.clock.nowMs();
  if (input.advanceMs !== undefined && input.advanceMs > roomMs) {
    return [`advanceMs: must be at most ${roomMs} (the sandbox clock stops at 9999-12-31)`];
  }
  if (input.scale !== undefined) ctx.clock.setScale(input.scale);
  if (input.advanceMs !== undefined) ctx.clock.advance(input.advanceMs);
  return [];
}

/** Applies a checked account body; answers the account state. */
export function applyAccount(ctx: SandboxContext, input: z.output<typeof accountControlSchema>): SandboxAccount {
  if (input.apiAccess !== undefined) ctx.account.apiAccess = input.apiAccess;
  if (input.customerMissing !== undefined) ctx.account.customerMissing = input.customerMissing;
  return { ...ctx.account };
}

export function registerControlRoutes(app: SandboxApp, ctx: SandboxContext, deps: ControlDeps): void {
  app.post('/_sandbox/force', (c) => {
    const body: unknown = c.get('body');
    const rule = checkForceRule(body === undefined ? {} : body);
    if (Array.isArray(rule)) return controlInvalid(rule);
    return c.json(deps.force.add(rule), 201);
  });
  app.get('/_sandbox/force', (c) => c.json({ rules: deps.force.list() }));
  app.delete('/_sandbox/force', (c) => {
    deps.force.clear();
    return c.json({ cleared: true });
  });

  app.get('/_sandbox/commits', (c) => c.json({ commits: deps.force.commits() }));

  app.get('/_sandbox/requests', (c) => c.json({ requests: deps.log.entries() }));
  app.delete('/_sandbox/requests', (c) => {
    deps.log.clear();
    return c.json({ cleared: true });
  });

  app.get('/_sandbox/stats', (c) =>
    c.json({
      counters: ctx.counters.snapshot(),
      requests: deps.log.entries().length,
      transactions: [...ctx.state.transactions.values()].reduce<Record<string, number>>((acc, tx) => {
        acc[tx.status] = (acc[tx.status] ?? 0) + 1;
        return acc;
      }, {}),
      pendingTimers: ctx.clock.pendingTimers,
      idempotencyKeys: deps.idempotency.size(),
      inspectorWatchers: hubOf(ctx).feed.watchers,
    }),
  );

  app.get('/_sandbox/time', (c) => c.json(timeView(ctx)));
  app.post('/_sandbox/time', (c) => {
    const input = parseControlBody(c, timeControlSchema);
    if (input instanceof Response) return input;
    const issues = applyTime(ctx, input);
    return issues.length > 0 ? controlInvalid(issues) : c.json(timeView(ctx));
  });

  app.post('/_sandbox/tokens/revoke', (c) => {
    const input = parseControlBody(c, revokeControlSchema);
    if (input instanceof Response) return input;
    return c.json({ revoked: deps.tokens.revoke(input.token) });
  });

  app.get('/_sandbox/account', (c) => c.json({ ...ctx.account }));
  app.post('/_sandbox/account', (c) => {
    const input = parseControlBody(c, accountControlSchema);
    if (input instanceof Response) return input;
    return c.json(applyAccount(ctx, input));
  });

  app.post('/_sandbox/reset', (c) => {
    const input = parseControlBody(c, closedObject({}));
    if (input instanceof Response) return input;
    deps.reset();
    return c.json({ reset: true });
  });

  app.get('/_sandbox/fixtures', (c) => c.json(fixturesOf(ctx.state)));
}
