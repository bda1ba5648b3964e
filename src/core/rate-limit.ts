import { ConfigurationError } from './errors.js';
import type { RateLimitOptions, WindowLimit } from './options.js';
import type { RateLimitInfo } from './request.js';
import { monotonicNow } from './sleep.js';

/**
 * What the transport needs from a limiter. One process keeps its state in memory; a store
 * shared by a fleet of processes can implement the same four calls.
 */
export interface RateLimiter {
  /** Resolves when `route` may send; undefined when it may send right now (no promise needed). */
  acquire(route: string, signal?: AbortSignal): Promise<void> | undefined;
  /** Once per successful `acquire`, when that request is over. */
  release(route: string): void;
  /** Follows the server's X-RateLimit-* headers (spec part 9 rule 4). */
  observe(route: string, info: RateLimitInfo): void;
  /** Holds every call of `route` for `ms` (a 429's Retry-After). */
  pause(route: string, ms: number): void;
  /** Rejects waiting calls and cancels the timer. */
  close(): void;
}

const MINUTE_MS = 60_000;

/** Spec part 8. Keys are `METHOD /template`, the route identity of every request. */
export const DEFAULT_ACCOUNT_LIMIT: WindowLimit = { limit: 120, windowMs: MINUTE_MS };
export const DEFAULT_ENDPOINT_LIMITS: Readonly<Record<string, WindowLimit>> = {
  'POST /api/v1.1/sims/{iccid}/renew-number': { limit: 20, windowMs: MINUTE_MS },
  'POST /api/v1.1/subscriptions/{iccid}/cancel': { limit: 30, windowMs: MINUTE_MS },
  'POST /api/v1.1/plans/purchase': { limit: 60, windowMs: MINUTE_MS },
  'POST /api/v3/plans/purchase': { limit: 60, windowMs: MINUTE_MS },
  'POST /api/v1.1/esim': { limit: 60, windowMs: MINUTE_MS },
  'POST /api/v1.1/sms': { limit: 30, windowMs: MINUTE_MS },
  'POST /api/v1.1/top-up': { limit: 20, windowMs: MINUTE_MS },
  'POST /api/v1.1/port-in/eligibility': { limit: 20, windowMs: MINUTE_MS },
  'POST /api/v1.1/team-members': { limit: 20, windowMs: MINUTE_MS },
  'POST /api/v1.1/webhooks/{id}/test': { limit: 10, windowMs: MINUTE_MS },
};

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * At most `limit` requests in any `windowMs`, counted the conservative way: a slot is taken at
 * admission and stays taken until `windowMs` after the answer came back. The server counts a
 * request when it arrives, somewhere between those two instants, so no fixed window of the
 * server, however aligned with ours and whatever the latency jitter, sees more than the limit.
 * Admission is synchronous while capacity remains; a timer exists only while someone waits.
 */
export class WindowGate {
  readonly limit: number;
  readonly windowMs: number;
  /** Completion times of the requests that still count against the window, oldest first. */
  #log: number[] = [];
  #head = 0;
  #inflight = 0;
  #pausedUntil = 0;
  #waiters: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(limit: WindowLimit) {
    this.limit = limit.limit;
    this.windowMs = limit.windowMs;
  }

  /** 0 when admitted, else the milliseconds until a slot may free up (Infinity: at the next release). */
  #take(now: number): number {
    if (now < this.#pausedUntil) return this.#pausedUntil - now;
    if (this.limit === Number.POSITIVE_INFINITY) return 0;
    const log = this.#log;
    const horizon = now - this.windowMs;
    while (this.#head < log.length && (log[this.#head] as number) <= horizon) this.#head++;
    if (this.#head > 512 && this.#head * 2 > log.length) {
      log.splice(0, this.#head);
      this.#head = 0;
    }
    const counted = log.length - this.#head;
    if (this.#inflight + counted < this.limit) {
      this.#inflight += 1;
      return 0;
    }
    return counted > 0 ? (log[this.#head] as number) + this.windowMs - now : Number.POSITIVE_INFINITY;
  }

  /** The admitted request is over (answered, failed or abandoned): its slot now ages out of the window. */
  release(): void {
    if (this.limit === Number.POSITIVE_INFINITY) return;
    this.#inflight -= 1;
    this.#log.push(monotonicNow());
    if (this.#waiters.length > 0) {
      this.#clearTimer();
      this.#drain();
    }
  }

  acquire(signal?: AbortSignal): Promise<void> | undefined {
    if (this.#waiters.length === 0 && this.#take(monotonicNow()) === 0) return undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.#waiters.indexOf(waiter);
          if (index >= 0) this.#waiters.splice(index, 1);
          reject(signal.reason);
          if (this.#waiters.length === 0) this.#clearTimer();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
      if (this.#timer === undefined) this.#drain();
    });
  }

  pauseUntil(until: number): void {
    if (until <= this.#pausedUntil) return;
    this.#pausedUntil = until;
    if (this.#waiters.length > 0) {
      this.#clearTimer();
      this.#drain();
    }
  }

  get idle(): boolean {
    return this.#waiters.length === 0 && monotonicNow() >= this.#pausedUntil;
  }

  #drain = (): void => {
    this.#timer = undefined;
    while (this.#waiters.length > 0) {
      const wait = this.#take(monotonicNow());
      if (wait > 0) {
        if (wait !== Number.POSITIVE_INFINITY) this.#timer = setTimeout(this.#drain, Math.ceil(wait));
        return;
      }
      const waiter = this.#waiters.shift() as Waiter;
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve();
    }
  };

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  close(reason: unknown): void {
    this.#clearTimer();
    for (const waiter of this.#waiters.splice(0)) {
      if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.reject(reason);
    }
  }
}

const unlimited: WindowLimit = { limit: Number.POSITIVE_INFINITY, windowMs: 0 };

function templateMatcher(route: string): RegExp | undefined {
  if (!route.includes('{')) return undefined;
  const source = route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[A-Za-z0-9_]+\\?\}/g, '[^/]+');
  return new RegExp(`^${source}$`);
}

/**
 * Account-wide gate plus one gate per limited endpoint (spec part 8), the endpoint's gate
 * awaited first. Gates are created on first use; an idle limiter holds no timer.
 */
export class LocalRateLimiter implements RateLimiter {
  readonly #accountLimit: WindowLimit;
  readonly #endpointLimits: Record<string, WindowLimit>;
  readonly #templates: Array<{ route: string; pattern: RegExp }> = [];
  #account: WindowGate | undefined;
  /** Limited gates by limit key. */
  readonly #gates = new Map<string, WindowGate>();
  /** Route as sent → its limited gate, null when it has none. */
  readonly #byRoute = new Map<string, WindowGate | null>();
  /** Pause-only gates of routes without a limit of their own, created by a 429. */
  readonly #paused = new Map<string, WindowGate>();

  constructor(options: RateLimitOptions = {}) {
    this.#accountLimit = options.account ?? DEFAULT_ACCOUNT_LIMIT;
    this.#endpointLimits = { ...DEFAULT_ENDPOINT_LIMITS, ...options.endpoints };
    for (const route of Object.keys(this.#endpointLimits)) {
      const pattern = templateMatcher(route);
      if (pattern) this.#templates.push({ route, pattern });
    }
  }

  /** `client.request()` names routes by concrete path; map them to the template that carries the limit. */
  #limitKey(route: string): string | undefined {
    if (this.#endpointLimits[route]) return route;
    for (const { route: template, pattern } of this.#templates) if (pattern.test(route)) return template;
    return undefined;
  }

  /** The gate of a limited endpoint, created on first use; null for routes with no limit of their own. */
  #limitedGate(route: string): WindowGate | null {
    let gate = this.#byRoute.get(route);
    if (gate !== undefined) return gate;
    const key = this.#limitKey(route);
    gate = null;
    if (key !== undefined) {
      gate = this.#gates.get(key) ?? new WindowGate(this.#endpointLimits[key] as WindowLimit);
      this.#gates.set(key, gate);
    }
    // Concrete paths are unbounded; a full cache starts over rather than grow.
    if (this.#byRoute.size >= 1024) this.#byRoute.clear();
    this.#byRoute.set(route, gate);
    return gate;
  }

  /** The route's own gate for pauses: its limited gate, or a pause-only gate. */
  #pausableGate(route: string): WindowGate {
    const limited = this.#limitedGate(route);
    if (limited) return limited;
    let gate = this.#paused.get(route);
    if (!gate) {
      gate = new WindowGate(unlimited);
      this.#paused.set(route, gate);
    }
    return gate;
  }

  #accountGate(): WindowGate {
    this.#account ??= new WindowGate(this.#accountLimit);
    return this.#account;
  }

  acquire(route: string, signal?: AbortSignal): Promise<void> | undefined {
    const gate = this.#limitedGate(route) ?? this.#paused.get(route);
    const pending = gate?.acquire(signal);
    if (!pending) return this.#accountAfter(gate, signal);
    return pending.then(() => this.#accountAfter(gate, signal));
  }

  /** The account gate, awaited after the endpoint's; gives the endpoint slot back if the wait fails. */
  #accountAfter(endpoint: WindowGate | undefined, signal: AbortSignal | undefined): Promise<void> | undefined {
    const pending = this.#accountGate().acquire(signal);
    if (!pending || !endpoint) return pending;
    return pending.catch((error: unknown) => {
      endpoint.release();
      throw error;
    });
  }

  release(route: string): void {
    this.#limitedGate(route)?.release();
    this.#accountGate().release();
  }

  observe(route: string, info: RateLimitInfo): void {
    if (info.remaining > 0) return;
    // The headers describe whichever limit the server applied: the endpoint's when the
    // numbers match it, else the account's.
    const endpoint = this.#limitedGate(route) ?? undefined;
    const account = this.#accountGate();
    const gate = endpoint && (endpoint.limit === info.limit || account.limit !== info.limit) ? endpoint : account;
    gate.pauseUntil(monotonicNow() + info.resetSeconds * 1000);
  }

  pause(route: string, ms: number): void {
    this.#pausableGate(route).pauseUntil(monotonicNow() + ms);
  }

  close(): void {
    const reason = new ConfigurationError('the client was closed while the call waited for a rate-limit slot');
    this.#account?.close(reason);
    for (const gate of this.#gates.values()) gate.close(reason);
    for (const gate of this.#paused.values()) gate.close(reason);
    this.#gates.clear();
    this.#paused.clear();
    this.#byRoute.clear();
  }
}
