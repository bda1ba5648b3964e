/**
 * Forced answers (POST /_sandbox/force) and seeded fault injection (the `faults` option).
 * A reset is answered with Response.error(): the node adapter destroys the socket, msw turns it
 * into a network error.
 */
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { defaultCode } from '../answers.js';
import type { SandboxContext, SandboxEnv, SandboxStatusCode } from '../context.js';
import { matchesPath } from '../paths.js';
import { createRng } from '../rng.js';

export const forceRuleSchema = z.object({
  method: z.string().min(1).default('*'),
  path: z.string().startsWith('/'),
  status: z.number().int().min(100).max(599).optional(),
  code: z.string().min(1).optional(),
  message: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  body: z.unknown().optional(),
  html: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  reset: z.boolean().optional(),
  times: z.number().int().min(1).default(1),
});

export type ForceRule = z.infer<typeof forceRuleSchema> & { id: string; remaining: number };

export interface ForceRegistry {
  add(rule: z.infer<typeof forceRuleSchema>): ForceRule;
  list(): ForceRule[];
  clear(): void;
  middleware: MiddlewareHandler<SandboxEnv>;
  /** Resolves pending real-time delays at once so close() does not wait for them. */
  cancelDelays(): void;
}

export function createForceRegistry(ctx: SandboxContext): ForceRegistry {
  let rules: ForceRule[] = [];
  let nextId = 1;
  const pending = new Set<{ timer: ReturnType<typeof setTimeout>; resolve: () => void }>();
  const faultRng = ctx.options.faults ? createRng(ctx.options.faults.seed) : null;

  const delay = (ms: number): Promise<void> =>
    ms <= 0
      ? Promise.resolve()
      : new Promise((resolve) => {
          const entry = {
            timer: setTimeout(() => {
              pending.delete(entry);
              resolve();
            }, ms),
            resolve,
          };
          pending.add(entry);
        });

  const take = (method: string, rawPath: string): ForceRule | undefined => {
    const rule = rules.find((r) => (r.method === '*' || r.method.toUpperCase() === method) && matchesPath(r.path, rawPath));
    if (!rule) return undefined;
    rule.remaining -= 1;
    if (rule.remaining <= 0) rules = rules.filter((r) => r !== rule);
    return rule;
  };

  const forcedAnswer = (c: Parameters<MiddlewareHandler<SandboxEnv>>[0], rule: ForceRule): Response | null => {
    if (rule.reset) return Response.error();
    const hasAnswer = rule.status !== undefined || rule.code || rule.message || rule.body !== undefined || rule.html !== undefined;
    if (!hasAnswer) return null;
    const status = (rule.status ?? (rule.html !== undefined ? 502 : 500)) as SandboxStatusCode;
    let res: Response;
    if (rule.html !== undefined) res = c.html(rule.html, status);
    else if (rule.body !== undefined) res = c.json(rule.body, status);
    else if (status < 400) res = ctx.ok(c, {}, { status });
    else res = ctx.fail(c, status, rule.code ?? defaultCode(status), rule.message ?? 'Forced by the sandbox', rule.details);
    if (status === 429 && !rule.headers?.['Retry-After']) res.headers.set('Retry-After', '1');
    for (const [name, value] of Object.entries(rule.headers ?? {})) res.headers.set(name, value);
    return res;
  };

  const middleware: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    const rule = take(c.req.method, c.get('rawPath'));
    if (rule) {
      ctx.counters.bump('force.applied');
      await delay(rule.delayMs ?? 0);
      const answer = forcedAnswer(c, rule);
      if (answer) return answer;
      return next();
    }
    const faults = ctx.options.faults;
    if (faults && faultRng) {
      const [lo, hi] = faults.latencyMs;
      await delay(lo + (hi - lo) * faultRng.next());
      if (faultRng.next() < faults.resetRate) {
        ctx.counters.bump('faults.reset');
        return Response.error();
      }
      if (faultRng.next() < faults.errorRate) {
        ctx.counters.bump('faults.error');
        return ctx.fail(c, 500, 'INTERNAL_ERROR', 'Injected fault');
      }
    }
    return next();
  };

  return {
    add(input) {
      const rule: ForceRule = { ...input, id: `force_${nextId++}`, remaining: input.times };
      rules.push(rule);
      return rule;
    },
    list: () => rules.map((r) => ({ ...r })),
    clear: () => {
      rules = [];
    },
    middleware,
    cancelDelays() {
      for (const entry of pending) {
        clearTimeout(entry.timer);
        entry.resolve();
      }
      pending.clear();
    },
  };
}
