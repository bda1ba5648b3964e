/**
 * Forced answers (POST /_sandbox/force), seeded fault injection (the `faults` option) and the
 * journal of committed writes that lets a soak run count how often each write was applied.
 *
 * A reset is answered with Response.error(): the node adapter destroys the socket, msw turns it
 * into a network error. The main middleware sits inside the idempotency check, right before the
 * routes; `afterCommit` sits outside it, so a reset after the route ran still leaves the
 * idempotency entry stored (a keyed retry gets the replay, as from a server that crashed
 * between committing and answering).
 */
import type { Context, MiddlewareHandler } from 'hono';
import * as z from 'zod';
import { defaultCode } from '../answers.js';
import type { SandboxContext, SandboxEnv, SandboxStatusCode } from '../context.js';
import type { ResolvedFaults } from '../options.js';
import { MAX_HANG_MS } from '../options.js';
import { matchesPath } from '../paths.js';
import type { SandboxRng } from '../rng.js';
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
  delayMs: z.number().int().min(0).max(MAX_HANG_MS).optional(),
  reset: z.boolean().optional(),
  resetAfter: z.boolean().optional(),
  times: z.number().int().min(1).default(1),
}) satisfies z.ZodType<Omit<ForceRule, 'id' | 'remaining'>, ForceRuleInput>;

/**
 * A forced answer for `sandbox.force()` (and POST /_sandbox/force): the next `times` calls
 * matching `method` and `path` get it. Of `reset`, `resetAfter`, `html` and `body`, the first set
 * decides what is sent; with none, an error envelope of `status` and `code`.
 */
export interface ForceRuleInput {
  /** `GET`, `POST` … or `'*'` (default) for every method. */
  method?: string | undefined;
  /** A route template (`/api/v1.1/sims/{iccid}` or `:iccid`) or an exact raw path. */
  path: string;
  /** The status to answer; default 500 (502 with `html`). A 429 gets `Retry-After: 1` unless `headers` sets it. */
  status?: number | undefined;
  /** The error envelope's `code`; default the status's usual code. */
  code?: string | undefined;
  /** The error envelope's `message`. */
  message?: string | undefined;
  /** The error envelope's `details`. */
  details?: Record<string, unknown> | undefined;
  /** A JSON body sent as is instead of an envelope. */
  body?: unknown;
  /** A `text/html` body (a gateway's error page). */
  html?: string | undefined;
  /** Headers added to the answer. */
  headers?: Record<string, string> | undefined;
  /** Real milliseconds to wait first (at most 600 000); alone, it delays the route's own answer. */
  delayMs?: number | undefined;
  /** Destroy the socket before the route runs: nothing is applied. */
  reset?: boolean | undefined;
  /** Let the route run (the write is applied), then destroy the socket instead of answering. */
  resetAfter?: boolean | undefined;
  /** How many matching calls it applies to; default 1. */
  times?: number | undefined;
}

/** A stored forced answer: its input with defaults applied, its id and the calls it has left. */
export interface ForceRule extends ForceRuleInput {
  /** The rule's id. */
  id: string;
  /** Matching calls it still applies to. */
  remaining: number;
  method: string;
  times: number;
}

/** How many times the route of one tagged write answered 2xx, i.e. applied it. */
interface CommittedWrite {
  /** `METHOD /raw/path` of the first commit. */
  route: string;
  count: number;
}

/** The request header that tags a write for the commit journal; a client sends the same value on every retry. */
const REQUEST_ID_HEADER = 'x-request-id';
/** Tags remembered at most, so a long-running sandbox cannot grow without bound. */
const MAX_JOURNAL_ENTRIES = 100_000;
/** POSTs that change nothing on the account: the credential exchange and the eligibility check. */
const NOT_WRITES = new Set(['POST /api/v1.1/auth/token', 'POST /api/v1.1/port-in/eligibility']);

export interface ForceRegistry {
  add(rule: z.infer<typeof forceRuleSchema>): ForceRule;
  list(): ForceRule[];
  clear(): void;
  /** Committed writes by `X-Request-Id`, in the order first seen. */
  commits(): Record<string, CommittedWrite>;
  /** Forgets forced rules and the commit journal (sandbox reset). */
  reset(): void;
  middleware: MiddlewareHandler<SandboxEnv>;
  /** Registered before the idempotency check: destroys the socket of requests doomed after their route ran. */
  afterCommit: MiddlewareHandler<SandboxEnv>;
  /** Resolves pending real-time delays at once so close() does not wait for them. */
  cancelDelays(): void;
}

type SandboxCtx = Context<SandboxEnv>;

/** What the dice decided for one request; `none` lets the route answer. */
type Fault = 'none' | 'reset' | 'error' | 'resetAfter' | 'unavailable' | 'gateway' | 'throttle' | 'hang';

const GATEWAY_PAGE =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';

/**
 * Rolls the dice for one request. `reset` and `error` keep their own dice, rolled first as they
 * always were, so existing seeds give the same sequence; the newer shapes share one die, rolled
 * only when one of them is on.
 */
function rollFault(faults: ResolvedFaults, rng: SandboxRng): Fault {
  if (rng.next() < faults.resetRate) return 'reset';
  if (rng.next() < faults.errorRate) return 'error';
  const shared: Array<[Fault, number]> = [
    ['resetAfter', faults.resetAfterRate],
    ['unavailable', faults.unavailableRate],
    ['gateway', faults.gatewayRate],
    ['throttle', faults.throttleRate],
    ['hang', faults.hangRate],
  ];
  if (shared.every(([, rate]) => rate === 0)) return 'none';
  let die = rng.next();
  for (const [fault, rate] of shared) {
    if (die < rate) return fault;
    die -= rate;
  }
  return 'none';
}

export function createForceRegistry(ctx: SandboxContext): ForceRegistry {
  let rules: ForceRule[] = [];
  let nextId = 1;
  let journal = new Map<string, CommittedWrite>();
  const pending = new Set<{ timer: ReturnType<typeof setTimeout>; resolve: (completed: boolean) => void }>();
  const faultRng = ctx.options.faults ? createRng(ctx.options.faults.seed) : null;
  /** Requests whose route ran and whose answer must become a reset (see afterCommit). */
  const doomed = new WeakSet<Request>();

  /** Resolves true when the time ran out, false when close() or reset() cut it short. */
  const delay = (ms: number): Promise<boolean> =>
    ms <= 0
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const entry = {
            timer: setTimeout(() => {
              pending.delete(entry);
              resolve(true);
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

  const forcedAnswer = (c: SandboxCtx, rule: ForceRule): Response | null => {
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

  /** The answer of an injected fault that replaces the route; null lets the route run. */
  const injectedAnswer = async (c: SandboxCtx, fault: Fault, faults: ResolvedFaults): Promise<Response | null> => {
    switch (fault) {
      case 'none':
      case 'resetAfter':
        return null;
      case 'reset':
        ctx.counters.bump('faults.reset');
        return Response.error();
      case 'error':
        ctx.counters.bump('faults.error');
        return ctx.fail(c, 500, 'INTERNAL_ERROR', 'Injected fault');
      case 'unavailable':
        ctx.counters.bump('faults.unavailable');
        return ctx.fail(c, 503, 'INTERNAL_ERROR', 'Injected fault: service unavailable');
      case 'gateway':
        ctx.counters.bump('faults.gateway');
        return c.html(GATEWAY_PAGE, 502);
      case 'throttle': {
        ctx.counters.bump('faults.throttle');
        const res = ctx.fail(c, 429, 'RATE_LIMITED', 'Too many requests (injected fault)');
        res.headers.set('Retry-After', String(faults.throttleRetryAfterSeconds));
        return res;
      }
      case 'hang':
        ctx.counters.bump('faults.hang');
        // Cut short by close() or reset(): nobody waits for this answer any more.
        return (await delay(faults.hangMs)) ? null : Response.error();
      default: {
        const unknown: never = fault;
        throw new Error(`unknown fault ${String(unknown)}`);
      }
    }
  };

  /** A write the route answered 2xx was applied; tagged ones are journaled per tag. */
  const journalCommit = (c: SandboxCtx): void => {
    const method = c.req.method;
    const route = `${method} ${c.get('rawPath')}`;
    if (method === 'GET' || method === 'HEAD' || NOT_WRITES.has(route)) return;
    if (c.res.type === 'error' || c.res.status < 200 || c.res.status >= 300) return;
    const tag = c.req.header(REQUEST_ID_HEADER);
    if (tag === undefined) return;
    const entry = journal.get(tag);
    if (entry) entry.count += 1;
    else if (journal.size < MAX_JOURNAL_ENTRIES) journal.set(tag, { route, count: 1 });
  };

  /** Runs the route; a reset-after dooms the answer once the route has committed. */
  const runRoute = async (c: SandboxCtx, next: () => Promise<void>, resetAfter: boolean): Promise<void> => {
    await next();
    journalCommit(c);
    if (resetAfter) doomed.add(c.req.raw);
  };

  const middleware: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    const rule = take(c.req.method, c.get('rawPath'));
    if (rule) {
      ctx.counters.bump('force.applied');
      await delay(rule.delayMs ?? 0);
      const answer = forcedAnswer(c, rule);
      if (answer) return answer;
      return runRoute(c, next, rule.resetAfter === true);
    }
    const faults = ctx.options.faults;
    if (!faults || !faultRng) return runRoute(c, next, false);
    const [lo, hi] = faults.latencyMs;
    await delay(lo + (hi - lo) * faultRng.next());
    const fault = rollFault(faults, faultRng);
    ctx.counters.bump('faults.rolled');
    const answer = await injectedAnswer(c, fault, faults);
    if (answer) return answer;
    if (fault === 'resetAfter') ctx.counters.bump('faults.resetAfter');
    return runRoute(c, next, fault === 'resetAfter');
  };

  const afterCommit: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    await next();
    if (!doomed.has(c.req.raw)) return;
    // Hono merges the previous answer's headers into a new one, which an error Response cannot
    // take; clearing it first makes the reset replace the answer outright.
    c.res = undefined;
    c.res = Response.error();
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
    commits: () => Object.fromEntries([...journal].map(([tag, entry]) => [tag, { ...entry }])),
    reset: () => {
      rules = [];
      journal = new Map();
    },
    middleware,
    afterCommit,
    cancelDelays() {
      for (const entry of pending) {
        clearTimeout(entry.timer);
        entry.resolve(false);
      }
      pending.clear();
    },
  };
}
