/** Options of createSandbox / startSandbox, and their resolved form. */
import { LATEST_CLOCK_MS, MAX_TIME_SCALE } from './clock.js';
import { normalizeHostName } from './host-names.js';

/**
 * Seeded fault injection on partner-API routes (never on /_sandbox/). Every rate is a share of
 * requests, 0..1. `resetRate` and `errorRate` are rolled first, each on its own die; the shapes
 * after them share one die, so their rates add up to at most 1 and each is exactly its share of
 * the requests that got past the first two.
 */
export interface SandboxFaults {
  /** Share of partner-API requests answered 500 INTERNAL_ERROR (0..1). */
  errorRate?: number;
  /** Added to every partner-API answer, in real milliseconds; a number or [min, max]. */
  latencyMs?: number | [number, number];
  /** Share of partner-API requests whose socket is destroyed before the route runs (0..1). */
  resetRate?: number;
  /**
   * Share whose route runs (the write is applied, its idempotency entry stored) and whose socket
   * is then destroyed instead of the answer: the client cannot tell it from `resetRate`.
   */
  resetAfterRate?: number;
  /** Share answered 503 INTERNAL_ERROR (an envelope without `details`). */
  unavailableRate?: number;
  /** Share answered by an HTML 502 page, as a gateway in front of the API would. */
  gatewayRate?: number;
  /** Share answered 429 RATE_LIMITED with `Retry-After: throttleRetryAfterSeconds`, whatever the real windows say. */
  throttleRate?: number;
  /** Retry-After of an injected 429, in seconds. Default 1. */
  throttleRetryAfterSeconds?: number;
  /** Share that gets no answer for `hangMs` real milliseconds; then the route runs and answers late. */
  hangRate?: number;
  /** How long a hang lasts, in real milliseconds; close() ends every hang at once. Default 30000, at most 600000. */
  hangMs?: number;
  /** Seed of the fault dice; defaults to the sandbox seed. */
  seed?: number;
}

/** The faults of a sandbox after validation: every rate present, latency as a range. */
export interface ResolvedFaults {
  errorRate: number;
  resetRate: number;
  resetAfterRate: number;
  unavailableRate: number;
  gatewayRate: number;
  throttleRate: number;
  throttleRetryAfterSeconds: number;
  hangRate: number;
  hangMs: number;
  latencyMs: [number, number];
  seed: number;
}

const DEFAULT_HANG_MS = 30_000;
/** Same ceiling as a forced rule's `delayMs`. */
export const MAX_HANG_MS = 600_000;

/** The key pairs a sandbox accepts; derived from the seed unless fixed in {@link SandboxOptions.credentials}. */
export interface SandboxCredentials {
  /** Admin-tier key. */
  key: string;
  /** Admin-tier secret. */
  secret: string;
  /** Non-admin key: POST /api/v1.1/sms and POST /api/v3/port-in answer 403. */
  standardKey: string;
  /** Non-admin secret. */
  standardSecret: string;
}

/**
 * Caps of the sandbox, in one place (STYLE: limits are data). The spec shows no body size limit
 * (part 8: "not shown"); these are the sandbox's own, documented in docs/sandbox.md.
 */
export interface SandboxLimits {
  /** Largest request body read, in bytes; a bigger one answers 413 unread. Default 1 MiB. */
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects in a JSON body; deeper answers 400. Default 64. */
  maxJsonDepth: number;
  /** Lifetime of an Idempotency-Key on the sandbox clock. Default 24 h. */
  idempotencyKeyTtlMs: number;
  /** Most Idempotency-Keys kept at once; the oldest is evicted first. Default 10000. */
  maxIdempotencyKeys: number;
}

const DEFAULT_LIMITS: Readonly<SandboxLimits> = {
  maxBodyBytes: 1_048_576,
  maxJsonDepth: 64,
  idempotencyKeyTtlMs: 24 * 60 * 60 * 1000,
  maxIdempotencyKeys: 10_000,
};

/**
 * Seedable states of the account (not forced answers: they hold until changed).
 * Changed at run time with POST /_sandbox/account.
 */
export interface SandboxAccount {
  /** false: the account's plan lacks API access, so every authenticated call answers 403 FORBIDDEN (spec part 5 rule 6). Default true. */
  apiAccess: boolean;
  /** true: the billing customer is missing, so GET /credit-balance answers 404 NOT_FOUND (spec part 4). Default false. */
  customerMissing: boolean;
}

const DEFAULT_ACCOUNT: Readonly<SandboxAccount> = { apiAccess: true, customerMissing: false };

/** Options of {@link createSandbox} and {@link startSandbox}: the seed, the clock, limits and faults. */
export interface SandboxOptions {
  /** Same seed → same ICCIDs, numbers, members, plans, credentials. Default 42. */
  seed?: number;
  /** Number of SIMs on the account. Default 300. */
  simCount?: number;
  /** Access token lifetime. Default 3600. */
  tokenTtlSeconds?: number;
  /** Length of every rate-limit window (spec part 8 says 60 s). Default 60000. */
  rateLimitWindowMs?: number;
  /** false turns rate limiting off. Default true. */
  rateLimit?: boolean;
  /** Sandbox time each async transaction step takes (PENDING → PROCESSING → terminal). Default 300. */
  transactionDelayMs?: number;
  /** Sandbox milliseconds per real millisecond. Default 1. */
  timeScale?: number;
  /**
   * Real milliseconds a receiver gets to answer one webhook delivery attempt, or to accept a voice
   * stream connection, before the attempt counts as failed. Default 10000 (spec part 6 and 8).
   * Unlike retry delays it does not follow the sandbox clock: a receiver answers in real time, so
   * at timeScale 2000 a scaled 10 s would be 5 ms and every attempt would time out.
   */
  deliveryTimeoutMs?: number;
  /** Start time of the sandbox clock. Default: the real time at creation. */
  now?: Date | string | number;
  /** Fault injection for soak tests; off by default. */
  faults?: SandboxFaults;
  /** Fixed credentials instead of the ones derived from the seed. */
  credentials?: Partial<SandboxCredentials>;
  /** Body size, JSON depth and idempotency-key caps; each member defaults as in DEFAULT_LIMITS. */
  limits?: Partial<SandboxLimits>;
  /** Initial account state; each member defaults as in DEFAULT_ACCOUNT. POST /_sandbox/reset restores it. */
  account?: Partial<SandboxAccount>;
}

/** Options of {@link startSandbox}: the sandbox's, and where to listen. */
export interface StartSandboxOptions extends SandboxOptions {
  /** The port; 0 (default) picks a free port. */
  port?: number;
  /** The address; default 127.0.0.1. */
  host?: string;
  /**
   * Host names, besides loopback and `host`, that requests may name in their `Host` header
   * (`'dev.example.test'`, or `'.example.test'` for every name under it). Default none.
   */
  allowedHosts?: readonly string[];
}

export interface ResolvedSandboxOptions {
  seed: number;
  simCount: number;
  tokenTtlSeconds: number;
  rateLimitWindowMs: number;
  rateLimit: boolean;
  transactionDelayMs: number;
  timeScale: number;
  deliveryTimeoutMs: number;
  startMs: number;
  limits: SandboxLimits;
  account: SandboxAccount;
  faults: ResolvedFaults | null;
}

function positive(name: string, value: number | undefined, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    const lower = min === Number.MIN_VALUE ? '> 0' : `>= ${min}`;
    throw new RangeError(`${name} must be a number ${lower} and <= ${max}`);
  }
  return value;
}

function rate(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (!(value >= 0 && value <= 1)) throw new RangeError(`faults.${name} must be between 0 and 1`);
  return value;
}

function integerIn(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer between ${min} and ${max}`);
  return value;
}

function resolveLimits(limits: Partial<SandboxLimits> = {}): SandboxLimits {
  const known = new Set(Object.keys(DEFAULT_LIMITS));
  const unknown = Object.keys(limits).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new TypeError(`unknown limits ${unknown.join(', ')} (allowed: ${[...known].join(', ')})`);
  return {
    maxBodyBytes: integerIn('limits.maxBodyBytes', limits.maxBodyBytes, DEFAULT_LIMITS.maxBodyBytes, 1, 2 ** 30),
    maxJsonDepth: integerIn('limits.maxJsonDepth', limits.maxJsonDepth, DEFAULT_LIMITS.maxJsonDepth, 1, 10_000),
    idempotencyKeyTtlMs: integerIn(
      'limits.idempotencyKeyTtlMs',
      limits.idempotencyKeyTtlMs,
      DEFAULT_LIMITS.idempotencyKeyTtlMs,
      1,
      10 * 365 * 86_400_000,
    ),
    maxIdempotencyKeys: integerIn('limits.maxIdempotencyKeys', limits.maxIdempotencyKeys, DEFAULT_LIMITS.maxIdempotencyKeys, 1, 10_000_000),
  };
}

function resolveAccount(account: Partial<SandboxAccount> = {}): SandboxAccount {
  const known = new Set(Object.keys(DEFAULT_ACCOUNT));
  const unknown = Object.keys(account).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new TypeError(`unknown account members ${unknown.join(', ')} (allowed: ${[...known].join(', ')})`);
  for (const name of known) {
    const value = account[name as keyof SandboxAccount];
    if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`account.${name} must be a boolean`);
  }
  return { ...DEFAULT_ACCOUNT, ...account };
}

export function resolveOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  const seed = options.seed ?? 42;
  if (!Number.isInteger(seed)) throw new RangeError('seed must be an integer');
  const start = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  if (Number.isNaN(start) || start < 0 || start > LATEST_CLOCK_MS) {
    throw new RangeError('now must be a valid date between 1970 and 9999');
  }
  const faults = options.faults ? resolveFaults(options.faults, seed) : null;
  return {
    seed,
    simCount: positive('simCount', options.simCount, 300, 20, 100_000),
    tokenTtlSeconds: positive('tokenTtlSeconds', options.tokenTtlSeconds, 3600, 1, 1e11),
    rateLimitWindowMs: positive('rateLimitWindowMs', options.rateLimitWindowMs, 60_000, 1, 1e11),
    rateLimit: options.rateLimit ?? true,
    transactionDelayMs: positive('transactionDelayMs', options.transactionDelayMs, 300, 0, 1e11),
    timeScale: positive('timeScale', options.timeScale, 1, Number.MIN_VALUE, MAX_TIME_SCALE),
    deliveryTimeoutMs: positive('deliveryTimeoutMs', options.deliveryTimeoutMs, 10_000, 1, 2_147_483_647),
    startMs: start,
    limits: resolveLimits(options.limits),
    account: resolveAccount(options.account),
    faults,
  };
}

function resolveFaults(input: SandboxFaults, sandboxSeed: number): ResolvedFaults {
  const latency = input.latencyMs ?? 0;
  const [lo, hi] = typeof latency === 'number' ? [latency, latency] : latency;
  if (!(lo >= 0 && hi >= lo)) throw new RangeError('faults.latencyMs must be >= 0 (or a [min, max] range)');
  const shared = {
    resetAfterRate: rate('resetAfterRate', input.resetAfterRate),
    unavailableRate: rate('unavailableRate', input.unavailableRate),
    gatewayRate: rate('gatewayRate', input.gatewayRate),
    throttleRate: rate('throttleRate', input.throttleRate),
    hangRate: rate('hangRate', input.hangRate),
  };
  // These shapes share one die (force.ts), so together they cannot exceed every request.
  const sum = Object.values(shared).reduce((a, b) => a + b, 0);
  if (sum > 1 + 1e-9) throw new RangeError('faults: resetAfterRate + unavailableRate + gatewayRate + throttleRate + hangRate must be at most 1');
  const retryAfter = input.throttleRetryAfterSeconds ?? 1;
  if (!Number.isInteger(retryAfter) || retryAfter < 0 || retryAfter > 86_400) {
    throw new RangeError('faults.throttleRetryAfterSeconds must be an integer between 0 and 86400');
  }
  const hangMs = input.hangMs ?? DEFAULT_HANG_MS;
  if (!Number.isInteger(hangMs) || hangMs < 0 || hangMs > MAX_HANG_MS) {
    throw new RangeError(`faults.hangMs must be an integer between 0 and ${MAX_HANG_MS}`);
  }
  const seed = input.seed ?? sandboxSeed;
  if (!Number.isInteger(seed)) throw new RangeError('faults.seed must be an integer');
  return {
    errorRate: rate('errorRate', input.errorRate),
    resetRate: rate('resetRate', input.resetRate),
    ...shared,
    throttleRetryAfterSeconds: retryAfter,
    hangMs,
    latencyMs: [lo, hi],
    seed,
  };
}

/** `allowedHosts` checked: each a host name (no scheme, port or path), normalized; a leading dot kept. */
export function resolveAllowedHosts(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError('allowedHosts must be an array of host names');
  return value.map((entry: unknown, index) => {
    const text = typeof entry === 'string' ? entry.trim() : '';
    const suffix = text.startsWith('.');
    const name = normalizeHostName(suffix ? text.slice(1) : text);
    if (name === null || name.startsWith('.')) {
      throw new TypeError(
        `allowedHosts[${index}] must be a host name such as 'dev.example.test' or '.example.test' (no scheme, port or path): got ${JSON.stringify(entry)}`,
      );
    }
    return suffix ? `.${name}` : name;
  });
}
