import { randomBytes } from 'node:crypto';
import { checkLimiterOptions } from './options.js';
import { DEFAULT_MAX_SERVER_WAIT_MS, STORE_COMMAND_TIMEOUT_MS, STORE_MAX_POLL_MS, STORE_RETRY_AFTER_MS } from '../core/defaults.js';
import { ClientClosedError, ConfigurationError, ConnectionError } from '../core/errors.js';
import type { Logger, RateLimitOptions, WindowLimit } from '../core/options.js';
import { type LimiterContext, LocalRateLimiter, type RateLimiter, RouteLimits } from '../core/rate-limit.js';
import type { RateLimitInfo } from '../core/request.js';
import { monotonicNow } from '../core/sleep.js';
import { type Admission, marginMs } from '../core/window-gate.js';
import { type RedisConnection, withTimeout } from './connection.js';
import { acquireScript, giveBackScript, pauseScript, releaseScript, renewScript } from './scripts.js';
import { Nap, Waiter } from './waiters.js';

/** What the limiter does when Redis does not answer: see docs/fleet.md. */
export type StoreErrorPolicy = 'fail-open' | 'fail-closed';

export interface RedisRateLimiterOptions extends RateLimitOptions {
  /** An ioredis `Redis` or `Cluster`; shared, never closed by the limiter. */
  redis: RedisConnection;
  /** The first part of every key; default `'mobile-partner-sdk'`. */
  namespace?: string | undefined;
  /**
   * `'fail-open'` (default): while Redis is unavailable each process limits itself in memory
   * with the same limits, and says so once at warn. `'fail-closed'`: calls fail with a
   * `ConnectionError` (`requestNotSent: true`) instead.
   */
  onStoreError?: StoreErrorPolicy | undefined;
}

const DEFAULT_NAMESPACE = 'mobile-partner-sdk';
/** The most waiting calls of one route asked for in one script run. */
const BATCH = 64;

/** A limited gate of a route, as the release script takes it. */
interface LimitedGate {
  slots: string;
  pause: string;
  limit: WindowLimit;
}

/** The keys and arguments of one route's gates, built once per route. */
interface RouteGates {
  acquireKeys: string[];
  /** Gate count, then each gate's limit (-1: pause only) and lease. */
  acquireArgs: number[];
  /** The endpoint's gate (when it has a limit of its own), then the account's. */
  limited: LimitedGate[];
  /** Where a 429 of this route is recorded. */
  pauseKey: string;
}

/** The calls of one route waiting in this process, asked for in batches by one loop. */
interface RouteQueue {
  waiters: Waiter[];
  running: boolean;
  nap: Nap;
}

/** Marks a slot taken from the in-process fallback rather than from Redis. */
const LOCAL = null;

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
  readonly #namespace: string;
  readonly #policy: StoreErrorPolicy;
  readonly #instance = randomBytes(6).toString('hex');
  #counter = 0;
  #logger: Logger | undefined;
  #maxPauseMs = DEFAULT_MAX_SERVER_WAIT_MS;
  /** The accounts of the clients attached; all must be one. */
  readonly #accounts: Array<Promise<string>> = [];
  #prefix: Promise<string> | undefined;
  readonly #gates = new Map<string, RouteGates>();
  readonly #queues = new Map<string, RouteQueue>();
  /** Per route, the slots its requests in flight hold, oldest first. */
  readonly #held = new Map<string, Array<string | typeof LOCAL>>();
  #local: LocalRateLimiter | undefined;
  /** Under fail-open after a store failure: Redis is not asked again before this instant. */
  #localUntil = 0;
  /** A store failure was reported and Redis has not answered since. */
  #degraded = false;
  #closed = false;
  /** Renews the leases of this process's slots in flight; runs only while it holds any. */
  #renewTimer: ReturnType<typeof setInterval> | undefined;

  constructor(options: RedisRateLimiterOptions) {
    const checked = checkLimiterOptions(options);
    this.#redis = checked.redis;
    this.#namespace = checked.namespace ?? DEFAULT_NAMESPACE;
    this.#policy = checked.onStoreError ?? 'fail-open';
    this.#options = { account: options.account, endpoints: options.endpoints };
    this.#limits = new RouteLimits(this.#options);
  }

  attach(context: LimiterContext): void {
    this.#logger ??= context.logger;
    this.#maxPauseMs = context.maxServerWaitMs;
    this.#accounts.push(context.accountId);
    this.#prefix = undefined;
    this.#gates.clear();
  }

  /** `namespace:{account}:` — the braces keep one account's keys in one Redis Cluster slot. */
  #keyPrefix(): Promise<string> {
    this.#prefix ??= Promise.all(this.#accounts).then((ids) => {
      const account = ids[0] ?? 'default';
      if (ids.some((id) => id !== account)) {
        throw new ConfigurationError(
          'a RedisRateLimiter serves one account: give the clients of each account a limiter of their own',
          'CONFIGURATION_ERROR',
          'rateLimit',
        );
      }
      return `${this.#namespace}:{${account}}:rl:`;
    });
    return this.#prefix;
  }

  #routeGates(prefix: string, route: string): RouteGates {
    let gates = this.#gates.get(route);
    if (gates) return gates;
    const key = this.#limits.keyOf(route);
    const endpoint = key === undefined ? undefined : gate(`${prefix}endpoint:${key}`, this.#limits.limitOf(key));
    const account = gate(`${prefix}account`, this.#limits.account);
    const routeGate = endpoint ?? gate(`${prefix}route:${route}`, undefined);
    gates = {
      acquireKeys: [routeGate.slots, routeGate.pause, account.slots, account.pause],
      acquireArgs: [2, ...gateArgs(endpoint?.limit), ...gateArgs(account.limit)],
      limited: endpoint ? [endpoint as LimitedGate, account as LimitedGate] : [account as LimitedGate],
      pauseKey: routeGate.pause,
    };
    // Concrete paths are unbounded; a full cache starts over rather than grow.
    if (this.#gates.size >= 1024) this.#gates.clear();
    this.#gates.set(route, gates);
    return gates;
  }

  acquire(route: string, admission?: Admission): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    const signal = admission?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#useLocal()) return this.#acquireLocal(route, admission);
    let queue = this.#queues.get(route);
    if (!queue) {
      queue = { waiters: [], running: false, nap: new Nap() };
      this.#queues.set(route, queue);
    }
    const waiting = queue;
    return new Promise<void>((resolve, reject) => {
      waiting.waiters.push(new Waiter(admission, resolve, reject, (dropped) => this.#leave(waiting, dropped)));
      if (!waiting.running) {
        waiting.running = true;
        // A microtask later, so the calls started in the same tick go in one script run.
        queueMicrotask(() => void this.#serve(route, waiting));
      }
    });
  }

  #leave(queue: RouteQueue, waiter: Waiter): void {
    const index = queue.waiters.indexOf(waiter);
    if (index >= 0) queue.waiters.splice(index, 1);
    if (queue.waiters.length === 0) queue.nap.wake();
  }

  /** Asks Redis for slots for the route's waiting calls, in order, until none waits. */
  async #serve(route: string, queue: RouteQueue): Promise<void> {
    try {
      while (queue.waiters.length > 0 && !this.#closed) {
        if (this.#useLocal()) {
          for (const waiter of queue.waiters.splice(0)) this.#handOver(route, waiter);
          return;
        }
        const ids = queue.waiters.slice(0, BATCH).map(() => this.#slotId());
        let admitted: number;
        let waitMs: number;
        try {
          const gates = this.#routeGates(await this.#keyPrefix(), route);
          const reply = await withTimeout(
            acquireScript.run(this.#redis, gates.acquireKeys, [...gates.acquireArgs, ...ids]),
            STORE_COMMAND_TIMEOUT_MS,
          );
          [admitted, waitMs] = reply as [number, number];
          this.#answered();
        } catch (error) {
          this.#storeFailed(error, route, queue);
          continue;
        }
        this.#admit(route, queue, ids.slice(0, admitted));
        if (queue.waiters.length === 0 || admitted === ids.length) continue;
        const wait = Math.max(1, waitMs);
        // A call whose deadline comes before the earliest slot fails now, as with the in-process limiter.
        for (const waiter of [...queue.waiters]) if (waiter.outlasts(wait)) waiter.drop(waiter.admission?.expired(wait));
        if (queue.waiters.length > 0) await queue.nap.sleep(Math.min(wait, STORE_MAX_POLL_MS));
      }
    } finally {
      queue.running = false;
      if (this.#queues.get(route) === queue) this.#queues.delete(route);
    }
  }

  /** Slots granted go to the calls still waiting, oldest first; one nobody waits for any more is given back. */
  #admit(route: string, queue: RouteQueue, ids: string[]): void {
    for (const id of ids) {
      const waiter = queue.waiters.shift();
      if (waiter) {
        this.#hold(route, id);
        waiter.admit();
      } else {
        void this.#giveBackSlot(route, id);
      }
    }
  }

  #slotId(): string {
    this.#counter = (this.#counter + 1) % Number.MAX_SAFE_INTEGER;
    return `${this.#instance}:${this.#counter}`;
  }

  #hold(route: string, slot: string | typeof LOCAL): void {
    const held = this.#held.get(route);
    if (held) held.push(slot);
    else this.#held.set(route, [slot]);
    if (slot !== LOCAL && this.#renewTimer === undefined) {
      // A quarter of the account's window: a slot's lease (a window) never runs out while its request is in flight.
      const everyMs = Math.max(10, Math.floor(this.#limits.account.windowMs / 4));
      this.#renewTimer = setInterval(() => this.#renew(), everyMs);
      // Requests in flight keep the process alive; this timer never does.
      this.#renewTimer.unref?.();
    }
  }

  #unhold(route: string): string | typeof LOCAL | undefined {
    const held = this.#held.get(route);
    if (!held) return undefined;
    const slot = held.shift();
    if (held.length === 0) this.#held.delete(route);
    if (this.#held.size === 0) this.#stopRenewing();
    return slot;
  }

  #stopRenewing(): void {
    if (this.#renewTimer !== undefined) clearInterval(this.#renewTimer);
    this.#renewTimer = undefined;
  }

  #renew(): void {
    for (const [route, held] of this.#held) {
      const ids = held.filter((slot): slot is string => slot !== LOCAL);
      if (ids.length === 0) continue;
      void this.#store(async () => {
        const gates = this.#routeGates(await this.#keyPrefix(), route);
        await renewScript.run(
          this.#redis,
          gates.limited.map((one) => one.slots),
          [...gates.limited.map((one) => gateArgs(one.limit)[1]), ...ids],
        );
      });
    }
  }

  release(route: string, sentAt: number, rateLimit: RateLimitInfo | undefined): void {
    const slot = this.#unhold(route);
    if (slot === undefined) return;
    if (slot === LOCAL) {
      this.#local?.release(route, sentAt, rateLimit);
      return;
    }
    void this.#store(async () => {
      const gates = this.#routeGates(await this.#keyPrefix(), route);
      const limited = gates.limited;
      // The headers describe the tighter of the limits the server applied (as LocalRateLimiter reads them).
      const described = rateLimit === undefined ? -1 : limited.findIndex((one) => one.limit.limit === rateLimit.limit);
      // A limit we were not configured with: only "none left until the reset" is safe to follow (spec part 9 rule 4).
      const pauseMs = rateLimit && described < 0 && rateLimit.remaining <= 0 ? this.#clampPause(rateLimit.resetSeconds * 1000) : 0;
      const args: Array<string | number> = [
        slot,
        rateLimit?.remaining ?? -1,
        rateLimit ? rateLimit.resetSeconds * 1000 : -1,
        pauseMs > 0 ? 1 : 0,
        pauseMs,
      ];
      limited.forEach((one, index) => args.push(one.limit.windowMs, marginMs(one.limit.windowMs), index === described ? 1 : 0));
      await releaseScript.run(
        this.#redis,
        limited.flatMap((one) => [one.slots, one.pause]),
        args,
      );
    });
  }

  giveBack(route: string): void {
    const slot = this.#unhold(route);
    if (slot === LOCAL) this.#local?.giveBack(route);
    else if (slot !== undefined) void this.#giveBackSlot(route, slot);
  }

  #giveBackSlot(route: string, slot: string): Promise<void> {
    return this.#store(async () => {
      const gates = this.#routeGates(await this.#keyPrefix(), route);
      await giveBackScript.run(
        this.#redis,
        gates.limited.map((one) => one.slots),
        [slot],
      );
    });
  }

  pause(route: string, ms: number): void {
    const pauseMs = this.#clampPause(ms);
    if (pauseMs === 0) return;
    this.#local?.pause(route, pauseMs);
    void this.#store(async () => {
      const gates = this.#routeGates(await this.#keyPrefix(), route);
      await pauseScript.run(this.#redis, [gates.pauseKey], [pauseMs]);
    });
  }

  /** NaN and negative are no pause; longer than the client's `maxServerWaitMs` is that. */
  #clampPause(ms: number): number {
    if (!(ms > 0)) return 0;
    return Math.ceil(Math.min(ms, this.#maxPauseMs));
  }

  /** A write nobody waits for: a failure is reported (and under fail-open, switches to the fallback), never thrown. */
  async #store(write: () => Promise<void>): Promise<void> {
    try {
      await withTimeout(write(), STORE_COMMAND_TIMEOUT_MS);
      this.#answered();
    } catch (error) {
      this.#storeFailed(error, undefined, undefined);
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
   * Redis failed or did not answer in time. Fail-open: the in-process limiter takes over for a
   * while (the queue's calls included), said once per outage. Fail-closed: the queue's calls fail.
   */
  #storeFailed(error: unknown, route: string | undefined, queue: RouteQueue | undefined): void {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof ConfigurationError) {
      for (const waiter of queue?.waiters.splice(0) ?? []) waiter.drop(error);
      return;
    }
    if (this.#policy === 'fail-closed') {
      for (const waiter of queue?.waiters.splice(0) ?? []) {
        waiter.drop(
          new ConnectionError(`${route ?? 'rate limiter'}: the rate limiter's store (Redis) is unavailable (${reason}); the request was not sent`, {
            cause: error,
            requestNotSent: true,
          }),
        );
      }
      return;
    }
    this.#localUntil = monotonicNow() + STORE_RETRY_AFTER_MS;
    if (!this.#degraded) {
      this.#degraded = true;
      const message = `rate limiter: Redis is unavailable (${reason}); each process limits itself in memory until Redis answers again`;
      if (this.#logger) this.#logger.warn(message, { onStoreError: 'fail-open' });
      else console.warn(`mobile-partner-sdk: ${message}`);
    }
  }

  #fallback(): LocalRateLimiter {
    this.#local ??= new LocalRateLimiter(this.#options, this.#maxPauseMs);
    return this.#local;
  }

  #acquireLocal(route: string, admission: Admission | undefined): Promise<void> {
    const pending = this.#fallback().acquire(route, admission);
    if (!pending) {
      this.#hold(route, LOCAL);
      return Promise.resolve();
    }
    return pending.then(() => this.#hold(route, LOCAL));
  }

  /** A call that waited for Redis goes on waiting in the in-process limiter. */
  #handOver(route: string, waiter: Waiter): void {
    this.#acquireLocal(route, waiter.admission).then(
      () => {
        if (waiter.settled) this.giveBack(route);
        else waiter.admit();
      },
      (reason: unknown) => waiter.drop(reason),
    );
  }

  /** Rejects every waiting call with ClientClosedError; leaves Redis and its client as they are. */
  close(): void {
    this.#closed = true;
    const reason = closedError();
    for (const queue of this.#queues.values()) {
      for (const waiter of queue.waiters.splice(0)) waiter.drop(reason);
      queue.nap.wake();
    }
    this.#queues.clear();
    this.#stopRenewing();
    this.#local?.close();
  }
}

function closedError(): ClientClosedError {
  return new ClientClosedError('the rate limiter was closed while the call waited for a slot');
}

function gate(name: string, limit: WindowLimit | undefined): { slots: string; pause: string; limit: WindowLimit | undefined } {
  return { slots: `${name}:slots`, pause: `${name}:pause`, limit };
}

/** A gate's limit and lease (one window and its margin) for the acquire script; -1 for a pause-only gate. */
function gateArgs(limit: WindowLimit | undefined): [number, number] {
  if (!limit) return [-1, 0];
  return [limit.limit, Math.ceil(limit.windowMs + marginMs(limit.windowMs))];
}
