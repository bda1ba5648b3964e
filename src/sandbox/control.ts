/**
 * The control API under /_sandbox/: for tests and demos, never part of the partner API.
 * No auth, no rate limit, not in the request log; answers are plain JSON (no envelope).
 */
import { z } from 'zod';
import type { SandboxApp, SandboxContext } from './context.js';
import type { ForceRegistry } from './middleware/force.js';
import { forceRuleSchema } from './middleware/force.js';
import type { RequestLog } from './middleware/request-log.js';
import type { TokenStore } from './middleware/tokens.js';
import { fixturesOf } from './state/fixtures.js';

export interface ControlDeps {
  force: ForceRegistry;
  log: RequestLog;
  tokens: TokenStore;
  reset: () => void;
}

const timeSchema = z
  .object({ advanceMs: z.number().min(0).optional(), scale: z.number().positive().optional() })
  .strict();
const revokeSchema = z.object({ token: z.string().min(1).optional() }).strict();

export function registerControlRoutes(app: SandboxApp, ctx: SandboxContext, deps: ControlDeps): void {
  const invalid = (issues: z.core.$ZodIssue[]): Response =>
    Response.json(
      { error: 'invalid body', issues: issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`) },
      { status: 400 },
    );

  app.post('/_sandbox/force', (c) => {
    const parsed = forceRuleSchema.safeParse(c.get('body') ?? {});
    if (!parsed.success) return invalid(parsed.error.issues);
    return c.json(deps.force.add(parsed.data), 201);
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
    }),
  );

  const timeView = (): { now: string; scale: number } => ({ now: ctx.nowIso(), scale: ctx.clock.scale });
  app.get('/_sandbox/time', (c) => c.json(timeView()));
  app.post('/_sandbox/time', (c) => {
    const parsed = timeSchema.safeParse(c.get('body') ?? {});
    if (!parsed.success) return invalid(parsed.error.issues);
    if (parsed.data.scale !== undefined) ctx.clock.setScale(parsed.data.scale);
    if (parsed.data.advanceMs !== undefined) ctx.clock.advance(parsed.data.advanceMs);
    return c.json(timeView());
  });

  app.post('/_sandbox/tokens/revoke', (c) => {
    const parsed = revokeSchema.safeParse(c.get('body') ?? {});
    if (!parsed.success) return invalid(parsed.error.issues);
    return c.json({ revoked: deps.tokens.revoke(parsed.data.token) });
  });

  app.post('/_sandbox/reset', (c) => {
    deps.reset();
    return c.json({ reset: true });
  });

  app.get('/_sandbox/fixtures', (c) => c.json(fixturesOf(ctx.state)));
}
