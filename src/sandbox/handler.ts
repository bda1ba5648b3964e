/**
 * createSandbox: the emulator as a pure WHATWG handler `(Request) => Promise<Response>`, built on
 * Hono. The same handler is served over node:http (server.ts) or plugged into msw.
 */
import { Hono } from 'hono';
import { fail, ok, paginate, requireBody } from './answers.js';
import { createClock } from './clock.js';
import type { SandboxApp, SandboxContext, SandboxCtx, SandboxEnv, SandboxPlugin } from './context.js';
import { createCounters } from './counters.js';
import { bearerCheck, tokenRoute } from './middleware/auth.js';
import { bodyReader } from './middleware/body.js';
import { maskControlUrls } from './middleware/control-urls.js';
import { createForceRegistry } from './middleware/force.js';
import { createIdempotency } from './middleware/idempotency.js';
import { createRateLimiter } from './middleware/rate-limit.js';
import type { LoggedRequest } from './middleware/request-log.js';
import { createRequestLog } from './middleware/request-log.js';
import { type HostPolicy, siteGuard } from './middleware/site-guard.js';
import { createTokenStore } from './middleware/tokens.js';
import { registerControlRoutes } from './control.js';
import type { SandboxCredentials, SandboxOptions } from './options.js';
import { resolveOptions } from './options.js';
import { pathOfTarget } from './paths.js';
import { createRng } from './rng.js';
import { registerBillingRoutes } from './routes/billing.js';
import { registerDeviceRoutes } from './routes/devices.js';
import { registerEsimRoutes } from './routes/esim.js';
import { registerGroupRoutes } from './routes/groups.js';
import { registerPlanRoutes } from './routes/plans.js';
import { registerPortInRoutes } from './routes/port-ins.js';
import { registerSimRoutes } from './routes/sims.js';
import { registerSmsRoutes } from './routes/sms.js';
import { registerSubscriptionRoutes } from './routes/subscriptions.js';
import { registerTeamRoutes } from './routes/team.js';
import { registerTransactionRoutes } from './routes/transactions.js';
import type { SandboxFixtures } from './state/fixtures.js';
import { fixturesOf } from './state/fixtures.js';
import { seedState } from './state/seed.js';
import { createTransactions } from './transactions.js';
import { registerWebhooks } from './webhooks/index.js';
import { createControlMethods, type SandboxControlMethods } from './control-methods.js';
import { hubOf } from './inspector/hub.js';
import { registerInspectorRoutes } from './inspector/routes.js';
import { transactionView } from './inspector/transactions.js';

/** What an adapter knows of a request beyond the WHATWG `Request`: for {@link Sandbox.handler}. */
export interface HandleInit {
  /**
   * The request-target's path exactly as received. WHATWG URL parsing folds `%2E%2E` segments
   * away; an adapter that still has the raw target passes it here so `/sim-groups/%2E%2E`
   * reaches the sim-group route with the name "..".
   */
  rawPath?: string;
}

/**
 * A sandbox without a server, from {@link createSandbox}: its WHATWG `handler` answers requests
 * in process (mount it in msw, Hono or a test), and its control methods drive it.
 */
export interface Sandbox extends SandboxControlMethods {
  /** Answers one request as the API would: `fetch`-shaped, for msw, a framework or a test. */
  handler: (request: Request, init?: HandleInit) => Promise<Response>;
  /** @internal The shared state of the route modules; see {@link SandboxContext}. */
  ctx: SandboxContext;
  /** The admin and standard key pairs the sandbox accepts. */
  credentials: SandboxCredentials;
  /** Ids of seeded records worth knowing in tests (a known ICCID, plan, member …). */
  fixtures: SandboxFixtures;
  /** The request log (what GET /_sandbox/requests answers). */
  requests(): LoggedRequest[];
  /**
   * The sandbox's clock now: what its signed webhook timestamps and its records' times read.
   * It runs ahead of real time with `timeScale` or `advanceTime`, so a receiver of its
   * deliveries checks signatures against it: `createNodeHandler({ secret, now: sandbox.now, onEvent })`.
   */
  now(): Date;
  /** Reseeds the state, puts the clock back to its start, and clears counters, logs, forced answers, idempotency keys and windows. */
  reset(): void;
  /** Cancels every timer and pending forced delay; runs the modules' close hooks. */
  close(): Promise<void>;
}

const PARTNER_PLUGINS: readonly SandboxPlugin[] = [
  registerSimRoutes,
  registerSubscriptionRoutes,
  registerPlanRoutes,
  registerEsimRoutes,
  registerPortInRoutes,
  registerBillingRoutes,
  registerTeamRoutes,
  registerGroupRoutes,
  registerDeviceRoutes,
  registerSmsRoutes,
  registerTransactionRoutes,
];

function credentialsFor(seed: number, fixed: Partial<SandboxCredentials> = {}): SandboxCredentials {
  const rng = createRng(seed ^ 0x5eed5eed);
  return {
    key: fixed.key ?? `pk_sandbox_admin_${rng.hex(24)}`,
    secret: fixed.secret ?? `sk_sandbox_admin_${rng.hex(40)}`,
    standardKey: fixed.standardKey ?? `pk_sandbox_std_${rng.hex(24)}`,
    standardSecret: fixed.standardSecret ?? `sk_sandbox_std_${rng.hex(40)}`,
  };
}

/**
 * A sandbox in process, without listening on anything: answer requests with its `handler`
 * (an msw handler, a framework route, a test's fetch). Same seed, same data.
 *
 * @example
 * ```ts
 * import { createSandbox } from 'mobile-partner-sdk/sandbox';
 *
 * const sandbox = createSandbox({ seed: 7 });
 * const answer = await sandbox.handler(new Request('http://sandbox.test/api/v1.1/plans'));
 * console.log(answer.status); // 401: the plans need a token
 * await sandbox.close();
 * ```
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return buildSandbox(options, null);
}

/** The routes of each sandbox's router, for the tests that must cover every route of a kind. */
const routers = new WeakMap<SandboxContext, SandboxApp>();

/** Every route of the sandbox as its router holds it: method and path template, middleware left out. */
export function routesOf(sandbox: Sandbox): Array<{ method: string; path: string }> {
  const app = routers.get(sandbox.ctx);
  return (app?.routes ?? []).filter((route) => route.method !== 'ALL').map(({ method, path }) => ({ method, path }));
}

/**
 * The sandbox behind {@link createSandbox} and startSandbox. `hosts` is the Host policy of a
 * sandbox served over HTTP; null in process, where no browser connects.
 */
export function buildSandbox(options: SandboxOptions, hosts: HostPolicy | null): Sandbox {
  const resolved = resolveOptions(options);
  const clock = createClock(resolved.startMs, resolved.timeScale);
  const resetHooks: Array<() => void> = [];
  const closeHooks: Array<() => void | Promise<void>> = [];
  let idSeq = 0;

  const ctx: SandboxContext = {
    clock,
    rng: createRng(resolved.seed + 1),
    state: seedState(resolved.seed, resolved.simCount, resolved.startMs),
    options: resolved,
    credentials: credentialsFor(resolved.seed, options.credentials),
    account: { ...resolved.account },
    counters: createCounters(),
    transactions: createTransactions({
      clock,
      state: () => ctx.state,
      stepMs: () => resolved.transactionDelayMs,
      newId: () => ctx.newId('txn_', 20),
      onChange: (tx) => hubOf(ctx).feed.touch('transactions', tx.transactionId, () => transactionView(tx)),
    }),
    ok,
    fail,
    paginate,
    readBody(c: SandboxCtx) {
      const body = c.get('body');
      if (body === undefined) return {};
      return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    },
    requireBody: (c: SandboxCtx, required) => requireBody(c, ctx.readBody(c), required),
    nowIso: () => clock.now().toISOString(),
    newId: (prefix, hexLength = 16) => `${prefix}${(idSeq++).toString(16).padStart(4, '0')}${ctx.rng.hex(Math.max(0, hexLength - 4))}`,
    operator: (name) => ctx.state.operators.find((o) => o.name === name),
    simByNumber: (phoneNumber) => [...ctx.state.sims.values()].find((s) => s.phoneNumber === phoneNumber),
    onReset: (fn) => void resetHooks.push(fn),
    onClose: (fn) => void closeHooks.push(fn),
  };

  const rawPaths = new WeakMap<Request, string>();
  const rawPathOf = (request: Request): string => rawPaths.get(request) ?? pathOfTarget(request.url);
  // The router sees the raw, still-encoded path; Hono decodes each parameter on c.req.param().
  const app = new Hono<SandboxEnv>({ getPath: rawPathOf });

  const tokens = createTokenStore();
  const log = createRequestLog(ctx, rawPathOf);
  const force = createForceRegistry(ctx);
  const limiter = createRateLimiter(ctx);
  const idempotency = createIdempotency(ctx);

  const reset = (): void => {
    // The clock goes back to its start too: the reseeded data hangs off that day, and a clock
    // jumped to its end (9999-12-31) is usable again.
    clock.restart(resolved.startMs, resolved.timeScale);
    force.cancelDelays();
    ctx.state = seedState(resolved.seed, resolved.simCount, resolved.startMs);
    ctx.rng = createRng(resolved.seed + 1);
    ctx.account = { ...resolved.account };
    idSeq = 0;
    ctx.counters.clear();
    log.clear();
    force.reset();
    limiter.reset();
    idempotency.reset();
    for (const hook of resetHooks) hook();
  };

  app.onError((_error, c) => ctx.fail(c, 500, 'INTERNAL_ERROR', 'Unexpected sandbox error'));
  app.notFound((c) => ctx.fail(c, 404, 'NOT_FOUND', 'No such route'));
  app.use('*', siteGuard(ctx, hosts, rawPathOf));
  app.use('*', log.middleware);
  // Authenticate before reading a byte of the body, then read it under the caps.
  app.use('/api/*', bearerCheck(ctx, tokens));
  app.use('*', bodyReader(ctx));
  app.use('/_sandbox/*', maskControlUrls);
  registerControlRoutes(app, ctx, { force, log, tokens, idempotency, reset });
  registerInspectorRoutes(app, ctx, { log, forceRules: () => force.list() });
  app.use('/api/*', limiter.middleware);
  app.use('/api/*', force.afterCommit);
  app.use('/api/*', idempotency.middleware);
  app.use('/api/*', log.markForced(force));
  tokenRoute(tokens)(app, ctx);
  for (const plugin of PARTNER_PLUGINS) plugin(app, ctx);
  const webhooks = registerWebhooks(app, ctx);
  const controls = createControlMethods(ctx, { force, tokens, webhooks });
  routers.set(ctx, app);

  let closed = false;
  return {
    async handler(request, init = {}) {
      if (init.rawPath !== undefined) rawPaths.set(request, init.rawPath);
      return app.fetch(request);
    },
    ctx,
    credentials: ctx.credentials,
    get fixtures() {
      return fixturesOf(ctx.state);
    },
    requests: () => log.entries(),
    now: () => clock.now(),
    ...controls,
    reset,
    async close() {
      if (closed) return;
      closed = true;
      clock.cancelAll();
      force.cancelDelays();
      for (const hook of closeHooks) await hook();
    },
  };
}
