/** Options of createSandbox / startSandbox, and their resolved form. */

export interface SandboxFaults {
  /** Share of partner-API requests answered 500 INTERNAL_ERROR (0..1). */
  errorRate?: number;
  /** Added to every partner-API answer, in real milliseconds; a number or [min, max]. */
  latencyMs?: number | [number, number];
  /** Share of partner-API requests whose socket is destroyed without an answer (0..1). */
  resetRate?: number;
  /** Seed of the fault dice; defaults to the sandbox seed. */
  seed?: number;
}

export interface SandboxCredentials {
  /** Admin-tier credential. */
  key: string;
  secret: string;
  /** Non-admin credential: POST /api/v1.1/sms and POST /api/v3/port-in answer 403. */
  standardKey: string;
  standardSecret: string;
}

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
}

export interface StartSandboxOptions extends SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
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
  faults: Required<Omit<SandboxFaults, 'latencyMs'>> & { latencyMs: [number, number] } | null;
}

function positive(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min) throw new RangeError(`${name} must be a number >= ${min}`);
  return value;
}

function rate(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (!(value >= 0 && value <= 1)) throw new RangeError(`faults.${name} must be between 0 and 1`);
  return value;
}

export function resolveOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  const seed = options.seed ?? 42;
  if (!Number.isInteger(seed)) throw new RangeError('seed must be an integer');
  const start = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  if (Number.isNaN(start)) throw new RangeError('now must be a valid date');
  let faults: ResolvedSandboxOptions['faults'] = null;
  if (options.faults) {
    const latency = options.faults.latencyMs ?? 0;
    const [lo, hi] = typeof latency === 'number' ? [latency, latency] : latency;
    if (!(lo >= 0 && hi >= lo)) throw new RangeError('faults.latencyMs must be >= 0 (or a [min, max] range)');
    faults = {
      errorRate: rate('errorRate', options.faults.errorRate),
      resetRate: rate('resetRate', options.faults.resetRate),
      latencyMs: [lo, hi],
      seed: options.faults.seed ?? seed,
    };
  }
  return {
    seed,
    simCount: positive('simCount', options.simCount, 300, 20),
    tokenTtlSeconds: positive('tokenTtlSeconds', options.tokenTtlSeconds, 3600),
    rateLimitWindowMs: positive('rateLimitWindowMs', options.rateLimitWindowMs, 60_000),
    rateLimit: options.rateLimit ?? true,
    transactionDelayMs: positive('transactionDelayMs', options.transactionDelayMs, 300, 0),
    timeScale: positive('timeScale', options.timeScale, 1, Number.MIN_VALUE),
    deliveryTimeoutMs: positive('deliveryTimeoutMs', options.deliveryTimeoutMs, 10_000),
    startMs: start,
    faults,
  };
}
