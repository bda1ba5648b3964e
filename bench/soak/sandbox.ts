/** The soak's sandbox (faults on, windows scaled) and the client options that match it. */
import { DEFAULT_ENDPOINT_LIMITS } from '../../src/core/rate-limit.js';
import type { ClientOptions, WindowLimit } from '../../src/index.js';
import type { SandboxFaults, SandboxHandle, StartSandboxOptions } from '../../src/sandbox/index.js';
import type { SoakInputs } from './plan.js';

/** The header the sandbox's commit journal (GET /_sandbox/commits) counts writes by. */
export const REQUEST_ID_HEADER = 'x-request-id';

export interface SoakConfig {
  operations: number;
  /** Seeds the plan, the sandbox data and the fault dice. */
  seed: number;
  concurrency: number;
  /** Every rate-limit window, on both sides (spec part 8 says 60 000; scaled so the run is short). */
  windowMs: number;
  /** Per attempt; shorter than `hangMs`, so a hang always ends in a client timeout. */
  timeoutMs: number;
  hangMs: number;
  /** Retry-After of an injected 429. */
  throttleRetryAfterSeconds: number;
  /** Sandbox time of each async step. */
  transactionDelayMs: number;
}

export const FULL: SoakConfig = {
  operations: 5_000,
  seed: 7,
  concurrency: 64,
  windowMs: 100,
  timeoutMs: 2_000,
  hangMs: 4_000,
  throttleRetryAfterSeconds: 1,
  transactionDelayMs: 40,
};

export const QUICK: SoakConfig = { ...FULL, operations: 500, concurrency: 32 };

/**
 * About 20 % of partner-API requests faulted, every shape present: resets before (3 %) and
 * after (5 % of what the first two dice let through, ≈ 4.7 %) the commit, 500 (≈ 2.9 %),
 * 503, HTML 502 and 429 (≈ 2.8 % each), hangs (≈ 0.9 %).
 */
function soakFaults(config: SoakConfig): SandboxFaults {
  return {
    resetRate: 0.03,
    errorRate: 0.03,
    resetAfterRate: 0.05,
    unavailableRate: 0.03,
    gatewayRate: 0.03,
    throttleRate: 0.03,
    throttleRetryAfterSeconds: config.throttleRetryAfterSeconds,
    hangRate: 0.01,
    hangMs: config.hangMs,
    seed: config.seed,
  };
}

export function sandboxOptions(config: SoakConfig): StartSandboxOptions {
  return {
    port: 0,
    seed: config.seed,
    simCount: 2_000,
    rateLimitWindowMs: config.windowMs,
    transactionDelayMs: config.transactionDelayMs,
    faults: soakFaults(config),
  };
}

export function clientOptions(config: SoakConfig, sandbox: { url: string; key: string; secret: string }): ClientOptions {
  const endpoints: Record<string, WindowLimit> = {};
  // spec part 8's per-endpoint limits as the client knows them, over the sandbox's scaled window.
  for (const [route, { limit }] of Object.entries(DEFAULT_ENDPOINT_LIMITS)) endpoints[route] = { limit, windowMs: config.windowMs };
  return {
    baseUrl: sandbox.url,
    key: sandbox.key,
    secret: sandbox.secret,
    timeoutMs: config.timeoutMs,
    rateLimit: { account: { limit: 120, windowMs: config.windowMs }, endpoints },
  };
}

/** Identifiers of the seeded account the plan draws from, read from the sandbox's live state. */
export function soakInputs(sandbox: SandboxHandle): SoakInputs {
  const { state } = sandbox.ctx;
  const smsOperators = new Set(state.operators.filter((o) => o.outboundSms).map((o) => o.name));
  const sims = [...state.sims.values()];
  const renewIccids = sims.slice(0, 20).map((s) => s.iccid);
  const rest = sims.slice(20);
  const cancellable = [...new Set(state.subscriptions.filter((s) => s.status === 'ACTIVE').map((s) => s.iccid))];
  const users = [...state.users.keys()];
  const devices = [...state.devices.values()]
    .filter((d) => d.assignedTo === null)
    .map((d, i) => ({ imei: d.imei, email: users[i % users.length] as string }));
  return {
    phoneNumbers: rest
      .filter((s) => smsOperators.has(s.operator))
      .slice(0, 50)
      .map((s) => s.phoneNumber),
    cancellableIccids: cancellable.filter((iccid) => !renewIccids.includes(iccid)),
    iccids: rest.slice(0, 200).map((s) => s.iccid),
    renewIccids,
    devices,
    userGroupNames: sandbox.fixtures.userGroupNames,
    pricedPlanIds: [...state.plans.values()].filter((p) => p.pricingConfigured).map((p) => p.productId),
    adminEmail: sandbox.fixtures.adminEmail,
  };
}
