import { checkLimiterOptions, type RedisRateLimiterOptions, type StoreErrorPolicy } from './options.js';
import { DEFAULT_MAX_SERVER_WAIT_MS, STORE_RETRY_AFTER_MS } from '../core/defaults.js';
import { fleetEndError } from '../core/call-end.js';
import { type ClientClosedError, ConfigurationError } from '../core/errors.js';
import type { Logger, RateLimitOptions } from '../core/options.js';
import { type LimiterContext, LocalRateLimiter, type RateLimiter, RouteLimits } from '../core/rate-limit.js';
import type { RateLimitInfo } from '../core/request.js';
import { monotonicNow } from '../core/sleep.js';
import type { Admission } from '../core/window-gate.js';
import type { RedisConnection } from './connection.js';
import { type QueueOwner, queueTiming, type QueueTiming, RouteQueue } from './route-queue.js';
import { RouteRuns } from './route-runs.js';

const DEFAULT_NAMESPACE = 'mobile-partner-sdk';

/** Where the slot of a request in flight came from. */
type Held = 'redis' | 'local';

/**
 * A {@link RateLimiter} whose windows live in Redis, so that every process of a fleet sharing
 * one account keeps to the account's limits together (spec part 8). Keys are namespaced by a
 * digest of the account each client attaches with (never the key itself), and expire on their
 * own: a process that dies while holding slots frees them within one window.
 *
 * @throws `ConfigurationError` (of `mobile-partner-sdk`) from the constructor when `redis` is not a client with the
 * commands of {@link RedisConnection}, or an option is invalid.
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { PartnerClient } from 'mobile-partner-sdk';
 * import { RedisRateLimiter } from 'mobile-partner-sdk/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { commandTimeout: 500, maxRetriesPerRequest: 1 });
 * const client = new PartnerClient({ rateLimit: new RedisRateLimiter({ redis, onStoreError: 'fail-open' }) });
 * ```
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: RedisConnection;
  readonly #options: RateLimitOptions;
  readonly #limits: RouteLimits;
  readonly #policy: StoreErrorPolicy;
  readonly #timing: QueueTiming;
  readonly #runs: RouteRuns;
  /** What the route queues ask of this limiter. */
  readonly #owner: QueueOwner;
  #logger: Logger | undefined;
  #maxPauseMs = DEFAULT_MAX_SERVER_WAIT_MS;
  /** Per route with calls waiting, answers to settle or spares in hand; dropped when it has none. */
  readonly #queues = new Map<string, RouteQueue>();
  /** Per route, where the slots of its requests in flight came from, oldest first. */
  readonly #held = new Map<string, Held[]>();
  /** Requests in flight on slots from Redis, all routes together: the lease is renewed while there are any. */
  #inFlight = 0;
  #local: LocalRateLimiter | undefined;
  /** Under fail-open after a store failure: Redis is not asked again before this instant. */
  #localUntil = 0;
  /** A store failure was reported and Redis has not answered since. */
  #degraded = false;
  #closed = false;
  /** Renews this process's lease in the gates while it has requests in flight. */
  #renewTimer: ReturnType<typeof setInterval> | undefined;

  constructor(options: RedisRateLimiterOptions) {
    const checked = checkLimiterOptions(options);
    this.#redis = checked.redis;
    this.#policy = checked.onStoreError ?? 'fail-open';
    this.#options = { account: options.account, endpoints: options.endpoints };
    this.#limits = new RouteLimits(this.#options);
    this.#timing = queueTiming(this.#limits.account.windowMs);
    this.#runs = new RouteRuns({
      redis: checked.redis,
      namespace: checked.namespace ?? DEFAULT_NAMESPACE,
      limits: this.#limits,
      timeoutMs: checked.commandTimeoutMs,
      aheadMs: this.#timing.aheadMs,
      maxPauseMs: this.#maxPauseMs,
    });
    this.#owner = {
      closed: () => this.#closed,
      useLocal: () => this.#useLocal(),
      answered: () => this.#answered(),
      storeFailed: (error, route) => this.#storeFailed(error, route),
      holdFromRedis: (route) => this.#hold(route, 'redis'),
      heldFromRedis: (route) => this.#heldFromRedis(route),
      acquireLocal: (route, admission) => this.#acquireLocal(route, admission),
      giveBack: (route) => this.giveBack(route),
      idle: (queue) => {
        if (this.#queues.get(queue.route) === queue) this.#queues.delete(queue.route);
      },
    };
  }

  attach(context: LimiterContext): void {
    this.#logger ??= context.logger;
    this.#maxPauseMs = context.maxServerWaitMs;
    this.#runs.attach(context.accountId, context.maxServerWaitMs);
    // Slots taken ahead were taken for the clients attached so far: none is handed out to the
    // new one before its account has been checked against theirs.
    for (const queue of this.#queues.values()) queue.expireSpares(true);
  }

  #queue(route: string): RouteQueue {
    let queue = this.#queues.get(route);
    if (!queue) {
      queue = new RouteQueue(route, this.#owner, this.#runs, this.#timing);
      this.#queues.set(route, queue);
    }
    return queue;
  }

  acquire(route: string, admission?: Admission): Promise<void> | undefined {
    if (this.#closed) return Promise.reject(closedError());
    if (this.#queues.get(route)?.takeSpare()) {
      this.#hold(route, 'redis');
      return undefined;
    }
    const signal = admission?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#useLocal()) return this.#acquireLocal(route, admission);
    return this.#queue(route).wait(admission);
  }

  /** The route's requests in flight on slots from Redis. */
  #heldFromRedis(route: string): number {
    let held = 0;
    for (const slot of this.#held.get(route) ?? []) if (slot === 'redis') held += 1;
    return held;
  }

  #hold(route: string, slot: Held): void {
    const held = this.#held.get(route);
    if (held) held.push(slot);
    else this.#held.set(route, [slot]);
    if (slot === 'redis') this.#inFlight += 1;
    if (slot === 'redis' && this.#renewTimer === undefined) {
      // A quarter of the shortest window: the process's lease in each gate (that gate's window)
      // never runs out while it has requests in flight, an endpoint's shorter than the account's included.
      const everyMs = Math.max(10, Math.floor(this.#limits.shortestWindowMs / 4));
      this.#renewTimer = setInterval(() => this.#renew(), everyMs);
      // Requests in flight keep the process alive; this timer never does.
      this.#renewTimer.unref?.();
    }
  }

  #unhold(route: string): Held | undefined {
    const held = this.#held.get(route);
    if (!held) return undefined;
    const slot = held.shift();
    if (held.length === 0) this.#held.delete(route);
    if (slot === 'redis') this.#inFlight -= 1;
    return slot;
  }

  #stopRenewing(): void {
    if (this.#renewTimer !== undefined) clearInterval(this.#renewTimer);
    this.#renewTimer = undefined;
  }

  /**
   * One script run per route with requests in flight on Redis slots. With none left the timer
   * stops (here rather than on every answer, which would rearm it once per call).
   */
  #renew(): void {
    if (this.#inFlight === 0) {
      this.#stopRenewing();
      return;
    }
    for (const [route, held] of this.#held) {
      if (!held.includes('redis')) continue;
      void this.#store(() => this.#runs.renew(route));
    }
  }

  release(route: string, sentAt: number, rateLimit: RateLimitInfo | undefined): void {
    const slot = this.#unhold(route);
    if (slot === undefined) return;
    if (slot === 'local') {
      this.#local?.release(route, sentAt, rateLimit);
      return;
    }
    this.#queue(route).answered({ sentAt, rateLimit, firstRun: 0 });
  }

  giveBack(route: string): void {
    const slot = this.#unhold(route);
    if (slot === 'local') this.#local?.giveBack(route);
    else if (slot === 'redis') this.#queue(route).giveBack();
  }

  pause(route: string, ms: number): void {
    const pauseMs = this.#runs.clampPause(ms);
    if (pauseMs === 0) return;
    this.#local?.pause(route, pauseMs);
    this.#queues.get(route)?.expireSpares(true);
    void this.#store(() => this.#runs.pause(route, pauseMs));
  }

  /** A write nobody waits for: a failure is reported (and under fail-open, switches to the fallback), never thrown. */
  async #store(write: () => Promise<void>): Promise<void> {
    try {
      await write();
      this.#answered();
    } catch (error) {
      this.#storeFailed(error, undefined);
    }
  }

  #useLocal(): boolean {
    return this.#localUntil !== 0 && monotonicNow() < this.#localUntil;
  }

  /** Redis answered: a fleet-wide limit again. */
  #answered(): void {
    if (!this.#degraded) return;
    this.#degraded = false;
    this.#localUntil = 0;
    this.#logger?.info('rate limiter: Redis answers again; the fleet shares its limits again');
  }

  /**
   * Redis failed or did not answer in time (or answered what its script cannot mean). Fail-open:
   * the in-process limiter takes over for a while (the waiting calls included), said once per
   * outage. Fail-closed: the waiting calls fail. Returns the reason they fail with, if they do.
   */
  #storeFailed(error: unknown, route: string | undefined): Error | undefined {
    // After close() the partner may close Redis at once: the last settle failing is no outage.
    if (this.#closed) return undefined;
    if (error instanceof ConfigurationError) return error;
    const reason = error instanceof Error ? error.message : String(error);
    if (this.#policy === 'fail-closed') {
      return fleetEndError({ reason: 'limiter_unavailable', route, why: reason, cause: error });
    }
    this.#localUntil = monotonicNow() + STORE_RETRY_AFTER_MS;
    // A connection its owner closed is no outage to warn of: the process is shutting down.
    if (!this.#degraded && this.#redis.status !== 'end') {
      this.#degraded = true;
      const message = `rate limiter: Redis is unavailable (${reason}); each process limits itself in memory until Redis answers again`;
      if (this.#logger) this.#logger.warn(message, { onStoreError: 'fail-open' });
      else console.warn(`mobile-partner-sdk: ${message}`);
    }
    return undefined;
  }

  #fallback(): LocalRateLimiter {
    this.#local ??= new LocalRateLimiter(this.#options, this.#maxPauseMs);
    return this.#local;
  }

  #acquireLocal(route: string, admission: Admission | undefined): Promise<void> {
    const pending = this.#fallback().acquire(route, admission);
    if (!pending) {
      this.#hold(route, 'local');
      return Promise.resolve();
    }
    return pending.then(() => this.#hold(route, 'local'));
  }

  /**
   * Rejects every waiting call with ClientClosedError, and sends Redis once, without waiting,
   * the answers not yet settled and the spare slots in hand (what does not arrive expires with
   * its lease). Leaves Redis and its client as they are.
   */
  close(): void {
    this.#closed = true;
    const reason = closedError();
    for (const queue of this.#queues.values()) queue.close(reason);
    this.#queues.clear();
    this.#stopRenewing();
    this.#local?.close(reason);
  }
}

function closedError(): ClientClosedError {
  return fleetEndError({ reason: 'limiter_closed' });
}
