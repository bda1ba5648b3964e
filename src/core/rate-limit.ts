import { hasPlaceholder, templateMatcher, type TemplateMatcher } from '../shared/route-template.js';
import { endError } from './call-end.js';
import type { ClientClosedError } from './errors.js';
import type { Logger, RateLimitInfo, RateLimitOptions, WindowLimit } from './types.js';
import { DEFAULT_MAX_SERVER_WAIT_MS } from './retry.js';
import { monotonicNow } from './sleep.js';
import { type Admission, WindowGate } from './window-gate.js';

export type { Admission } from './window-gate.js';

/**
 * What the transport needs from a limiter. One process keeps its state in memory; a store
 * shared by a fleet of processes can implement the same four calls.
 */
export interface RateLimiter {
  /**
   * Resolves when `route` may send; undefined when it may send right now (no promise needed).
   * Rejects when the admission's signal aborts or its deadline would pass first.
   */
  acquire(route: string, admission?: Admission): Promise<void> | undefined;
  /**
   * Once per successful `acquire`, when that request is over. `sentAt` (monotonic ms) is when
   * it left; `rateLimit` the answer's X-RateLimit-* headers, when it had them: the limiter
   * follows the server with them (spec part 8 rule 2, and part 9 rule 4: limits may change).
   */
  release(route: string, sentAt: number, rateLimit: RateLimitInfo | undefined): void;
  /**
   * Instead of `release`, once per successful `acquire` whose request provably never left (the
   * connection was refused, the call was cut or ran out of time before sending): no server window
   * counted it, so the slot is free again at once. A limiter without it gets `release` instead,
   * which holds the slot as if the request had been sent.
   */
  giveBack?(route: string): void;
  /**
   * Holds every call of `route` for `ms` (a 429's Retry-After, spec part 8 rules 1 and 3), as the
   * server sent it. Believe it for `maxServerWaitMs` at most (given by `attach`), as the client's
   * own limiter and `RedisRateLimiter` do: past that, calls are sent and the server asked again.
   */
  pause(route: string, ms: number): void;
  /** Rejects waiting calls and cancels the timer. */
  close(): void;
  /**
   * Called once by each client the limiter is given to, on that client's first call, before any
   * `acquire`: which account it serves, its logger and its ceiling on server-imposed pauses. A
   * limiter shared by a fleet keys its state by `accountId`, so accounts never share a window.
   */
  attach?(context: LimiterContext): void;
}

/** What a client tells a limiter it was given (see {@link RateLimiter.attach}). */
export interface LimiterContext {
  /**
   * The account the client serves, as 16 hex digits of a SHA-256 of its origin and API key: the
   * same for every process of one account, different across accounts and servers, and no way
   * back to the key. A promise: Web Crypto digests are asynchronous.
   */
  readonly accountId: Promise<string>;
  /** The client's logger behind its `logLevel`; undefined when the client was given none. */
  readonly logger: Logger | undefined;
  /** The client's `maxServerWaitMs`: no call waits longer on a pause the server imposed. */
  readonly maxServerWaitMs: number;
}

/** A limiter object given as the `rateLimit` option (checked at construction to have all four methods). */
export function isRateLimiter(value: unknown): value is RateLimiter {
  return typeof value === 'object' && value !== null && typeof (value as { acquire?: unknown }).acquire === 'function';
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

/**
 * The limits a limiter enforces: the caller's options over the spec's table (part 8), and which
 * limit a route falls under. `client.request()` names routes by concrete path, so a route is
 * matched against the table's templates too.
 */
export class RouteLimits {
  readonly account: WindowLimit;
  /** The shortest window of the account's and the endpoints' limits. */
  readonly shortestWindowMs: number;
  readonly #endpoints: Record<string, WindowLimit>;
  readonly #templates: Array<{ route: string; pattern: TemplateMatcher }> = [];

  constructor(options: RateLimitOptions = {}) {
    this.account = options.account ?? DEFAULT_ACCOUNT_LIMIT;
    this.#endpoints = { ...DEFAULT_ENDPOINT_LIMITS, ...options.endpoints };
    let shortestWindowMs = this.account.windowMs;
    for (const route of Object.keys(this.#endpoints)) {
      if (hasPlaceholder(route)) this.#templates.push({ route, pattern: templateMatcher(route) });
      shortestWindowMs = Math.min(shortestWindowMs, (this.#endpoints[route] as WindowLimit).windowMs);
    }
    this.shortestWindowMs = shortestWindowMs;
  }

  /** The table's key (`METHOD /template`) of a route with a limit of its own; undefined for the rest. */
  keyOf(route: string): string | undefined {
    if (this.#endpoints[route]) return route;
    for (const { route: template, pattern } of this.#templates) if (pattern.test(route)) return template;
    return undefined;
  }

  /** The limit under `key`, a key `keyOf` returned. */
  limitOf(key: string): WindowLimit {
    return this.#endpoints[key] as WindowLimit;
  }
}

const unlimited: WindowLimit = { limit: Number.POSITIVE_INFINITY, windowMs: 0 };

/**
 * Account-wide gate plus one gate per limited endpoint (spec part 8), the endpoint's gate
 * awaited first. Gates are created on first use; an idle limiter holds no timer.
 */
export class LocalRateLimiter implements RateLimiter {
  readonly #limits: RouteLimits;
  #account: WindowGate | undefined;
  /** Limited gates by limit key. */
  readonly #gates = new Map<string, WindowGate>();
  /** Route as sent → its limited gate, null when it has none. */
  readonly #byRoute = new Map<string, WindowGate | null>();
  /** Pause-only gates of routes without a limit of their own, created by a 429. */
  readonly #paused = new Map<string, WindowGate>();

  /**
   * The longest a call waits on a pause the server imposed (a 429's Retry-After, Remaining 0
   * until the reset, of any limit): each gate refuses a call meeting a longer one.
   */
  readonly #maxPauseMs: number;
  /** Set by `close()`: no gate is created or waited on again. */
  #closed: ClientClosedError | undefined;

  constructor(options: RateLimitOptions = {}, maxServerWaitMs = DEFAULT_MAX_SERVER_WAIT_MS) {
    this.#maxPauseMs = maxServerWaitMs;
    this.#limits = new RouteLimits(options);
  }

  /** The gate of a limited endpoint, created on first use; null for routes with no limit of their own. */
  #limitedGate(route: string): WindowGate | null {
    let gate = this.#byRoute.get(route);
    if (gate !== undefined) return gate;
    const key = this.#limits.keyOf(route);
    gate = null;
    if (key !== undefined) {
      gate = this.#gates.get(key) ?? new WindowGate(this.#limits.limitOf(key), this.#maxPauseMs);
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
      gate = new WindowGate(unlimited, this.#maxPauseMs);
      this.#paused.set(route, gate);
    }
    return gate;
  }

  #accountGate(): WindowGate {
    this.#account ??= new WindowGate(this.#limits.account, this.#maxPauseMs);
    return this.#account;
  }

  acquire(route: string, admission?: Admission): Promise<void> | undefined {
    if (this.#closed) return Promise.reject(this.#closed);
    const gate = this.#limitedGate(route) ?? this.#paused.get(route);
    const pending = gate?.acquire(admission);
    if (!pending) return this.#accountAfter(gate, admission);
    return pending.then(() => this.#accountAfter(gate, admission));
  }

  /** The account gate, awaited after the endpoint's; gives the endpoint slot back if the wait fails. */
  #accountAfter(endpoint: WindowGate | undefined, admission: Admission | undefined): Promise<void> | undefined {
    const pending = this.#accountGate().acquire(admission);
    if (!pending || !endpoint) return pending;
    return pending.catch((error: unknown) => {
      endpoint.giveBack();
      throw error;
    });
  }

  release(route: string, sentAt: number, rateLimit: RateLimitInfo | undefined): void {
    const endpoint = this.#limitedGate(route);
    const account = this.#accountGate();
    // The headers describe the tighter of the limits the server applied; the gate whose limit
    // they match learns where that limit's window lies, the other gate nothing.
    const described =
      rateLimit === undefined ? undefined : endpoint?.limit === rateLimit.limit ? endpoint : account.limit === rateLimit.limit ? account : undefined;
    endpoint?.release(sentAt, described === endpoint ? rateLimit : undefined);
    account.release(sentAt, described === account ? rateLimit : undefined);
    // A limit we were not configured with (the server's limits changed, spec part 9 rule 4):
    // its window may lie anywhere, so only "none left until the reset" is safe to follow, for
    // maxServerWaitMs at most (the gate's bound on every pause the server imposes).
    if (rateLimit && !described && rateLimit.remaining <= 0) {
      (endpoint ?? account).pauseUntil(monotonicNow() + rateLimit.resetSeconds * 1000);
    }
  }

  giveBack(route: string): void {
    this.#limitedGate(route)?.giveBack();
    this.#accountGate().giveBack();
  }

  pause(route: string, ms: number): void {
    // NaN and negative are no pause; the gate believes no pause longer than maxServerWaitMs.
    if (this.#closed || !(ms > 0)) return;
    this.#pausableGate(route).pauseUntil(monotonicNow() + ms);
  }

  /** Refuses every waiting and later call with `reason`: the client's closing, unless the fleet limiter falling back on this one is closed. */
  close(reason: ClientClosedError = endError({ reason: 'limiter_closed' })): void {
    this.#closed = reason;
    this.#account?.close(reason);
    for (const gate of this.#gates.values()) gate.close(reason);
    for (const gate of this.#paused.values()) gate.close(reason);
    this.#gates.clear();
    this.#paused.clear();
    this.#byRoute.clear();
  }
}
