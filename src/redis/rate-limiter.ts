import { createHash, randomBytes } from 'node:crypto';
import { checkLimiterOptions, type RedisRateLimiterOptions, type StoreErrorPolicy } from './options.js';
import { DEFAULT_MAX_SERVER_WAIT_MS, STORE_MAX_POLL_MS, STORE_RETRY_AFTER_MS } from '../core/defaults.js';
import { endError } from '../core/call-end.js';
import { type ClientClosedError, ConfigurationError } from '../core/errors.js';
import type { Logger, RateLimitOptions, WindowLimit } from '../core/options.js';
import { type LimiterContext, LocalRateLimiter, type RateLimiter, RouteLimits } from '../core/rate-limit.js';
import type { RateLimitInfo } from '../core/request.js';
import { monotonicNow } from '../core/sleep.js';
import { type Admission, marginMs } from '../core/window-gate.js';
import { type RedisConnection, withTimeout } from './connection.js';
import { GATE_KEYS, pauseScript, renewScript, settleScript } from './scripts.js';
import { Nap, Waiter } from './waiters.js';

const DEFAULT_NAMESPACE = 'mobile-partner-sdk';
/** The most waiting calls of one route asked for in one script run, and the most answers settled in one. */
const BATCH = 64;
/**
 * Answers are settled in Redis together, at most this long after they arrive (or an eighth of
 * the window, if shorter; sooner when a call of the route asks for slots, or an answer says the
 * window is full). Until then each counts in its process's flight, so a late settle only ever
 * counts a request longer.
 */
const SETTLE_DELAY_MS = 10;
/** The most slots a process takes ahead of its calls, when a window is at most half full (and a sixteenth of the limit at most). */
const SPARES = 16;
/**
 * How long a spare slot is handed out without asking Redis again: it bounds how late this
 * process learns of a pause another process met. Unused spares are then given back.
 */
const SPARE_LIFE_MS = 10;

/** The keys and arguments of one route's gates, built once per route. */
interface RouteGates {
  /** The {@link GATE_KEYS} of each gate, then the account's `runs`. */
  keys: string[];
  /** The route's field, how long spares may be held, the gate count, then each gate's limit (-1: pause only), lease, window and margin. */
  args: Array<string | number>;
  /** This process's field in the gates' hashes for this route: the instance id and a digest of the route. */
  field: string;
  /** For the renewal: `alive` and `flight` of each limited gate, and their leases. */
  renewKeys: string[];
  renewArgs: number[];
  /** The 1-based place in `keys` of each limit: the gate X-RateLimit headers with that limit describe. */
  describedBy: Map<number, number>;
  /** Where a 429 of this route is recorded. */
  pauseKey: string;
}

/** An answer not yet settled in Redis. */
interface Settle {
  sentAt: number;
  rateLimit: RateLimitInfo | undefined;
  /** The number of the first run that carried it (0: none yet); sent again after a run given up on. */
  firstRun: number;
}

/**
 * One route's business with Redis in this process: the calls waiting, the answers and unsent
 * requests not yet settled, and the spare slots in hand. One loop at a time runs its scripts.
 */
interface RouteQueue {
  waiters: Waiter[];
  settles: Settle[];
  /** Requests admitted by Redis that never left, or spares unused. */
  givenBack: number;
  /** Slots taken ahead by the last script run, not handed out yet. */
  spares: number;
  /** Monotonic ms after which the spares are no longer handed out. */
  sparesUntil: number;
  /** The loop asking for slots runs (at most one per route). */
  serving: boolean;
  /** The loop is to ask for spares even if no call waits. */
  topUp: boolean;
  /** The delayed settle, when one is due. */
  settleTimer: ReturnType<typeof setTimeout> | undefined;
  /** A settle is due a microtask later. */
  settleSoon: boolean;
  /** Gives the spares back when their life ends. */
  spareTimer: ReturnType<typeof setTimeout> | undefined;
  /** The run in progress: the route's runs go one at a time, each counting what the one before admitted. */
  running: Promise<void> | undefined;
  /**
   * A run was given up on (timed out, failed): Redis may hold a count for this route that the
   * process does not know of, until a run of the route is executed after it.
   */
  stale: boolean;
  /** The run that corrects the count, while one is due. */
  correctTimer: ReturnType<typeof setTimeout> | undefined;
  nap: Nap;
}

/** What one run of {@link settleScript} answered: how many calls asked, how many were admitted, spares, ms to wait. */
interface Exchanged {
  asking: number;
  admitted: number;
  spares: number;
  waitMs: number;
}

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
  readonly #namespace: string;
  readonly #policy: StoreErrorPolicy;
  readonly #timeoutMs: number;
  /** This limiter's id in the gates' `flight` and `alive` keys. */
  readonly #instance = randomBytes(6).toString('hex');
  #logger: Logger | undefined;
  #maxPauseMs = DEFAULT_MAX_SERVER_WAIT_MS;
  /** The accounts of the clients attached; all must be one. */
  readonly #accounts: Array<Promise<string>> = [];
  #prefix: Promise<string> | undefined;
  readonly #gates = new Map<string, RouteGates>();
  /** Per route with calls waiting, answers to settle or spares in hand; dropped when it has none. */
  readonly #queues = new Map<string, RouteQueue>();
  /** Per route, where the slots of its requests in flight came from, oldest first. */
  readonly #held = new Map<string, Held[]>();
  /** Requests in flight on slots from Redis, all routes together: the lease is renewed while there are any. */
  #inFlight = 0;
  /** The number of the last script run sent: runs of a route reach Redis numbered in order. */
  #runs = 0;
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
    this.#namespace = checked.namespace ?? DEFAULT_NAMESPACE;
    this.#policy = checked.onStoreError ?? 'fail-open';
    this.#timeoutMs = checked.commandTimeoutMs;
    this.#options = { account: options.account, endpoints: options.endpoints };
    this.#limits = new RouteLimits(this.#options);
  }

  attach(context: LimiterContext): void {
    this.#logger ??= context.logger;
    this.#maxPauseMs = context.maxServerWaitMs;
    this.#accounts.push(context.accountId);
    this.#prefix = undefined;
    this.#gates.clear();
    // Slots taken ahead were taken for the clients attached so far: none is handed out to the
    // new one before its account has been checked against theirs.
    for (const [route, queue] of this.#queues) this.#expireSpares(route, queue, true);
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
    const all = [routeGate, account];
    const describedBy = new Map<number, number>();
    // Headers describe the tighter limit the server applied: the endpoint's when both match.
    for (let index = all.length - 1; index >= 0; index--) {
      const limit = all[index]?.limit;
      if (limit) describedBy.set(limit.limit, index + 1);
    }
    const limited = all.filter((one) => one.limit !== undefined);
    const field = `${this.#instance}:${createHash('sha256').update(route).digest('hex').slice(0, 12)}`;
    gates = {
      keys: [...all.flatMap((one) => one.keys), `${prefix}runs`],
      args: [field, this.#aheadMs(), all.length, ...all.flatMap((one) => gateArgs(one.limit))],
      field,
      renewKeys: limited.flatMap((one) => [one.keys[1], one.keys[0]] as string[]),
      renewArgs: limited.map((one) => gateArgs(one.limit)[1]),
      describedBy,
      pauseKey: routeGate.keys[GATE_KEYS.indexOf('pause')] as string,
    };
    // Concrete paths are unbounded; a full cache starts over rather than grow.
    if (this.#gates.size >= 1024) this.#gates.clear();
    this.#gates.set(route, gates);
    return gates;
  }

  #queue(route: string): RouteQueue {
    let queue = this.#queues.get(route);
    if (!queue) {
      queue = {
        waiters: [],
        settles: [],
        givenBack: 0,
        spares: 0,
        sparesUntil: 0,
        serving: false,
        topUp: false,
        settleTimer: undefined,
        settleSoon: false,
        spareTimer: undefined,
        running: undefined,
        stale: false,
        correctTimer: undefined,
        nap: new Nap(),
      };
      this.#queues.set(route, queue);
    }
    return queue;
  }

  /** Forgets a route's queue once nothing of it is pending. */
  #tidy(route: string, queue: RouteQueue): void {
    if (queue.serving || queue.settleTimer !== undefined || queue.settleSoon || queue.spareTimer !== undefined) return;
    if (queue.running !== undefined || queue.stale || queue.correctTimer !== undefined) return;
    if (queue.waiters.length + queue.settles.length + queue.givenBack + queue.spares > 0) return;
    if (this.#queues.get(route) === queue) this.#queues.delete(route);
  }

  acquire(route: string, admission?: Admission): Promise<void> | undefined {
    if (this.#closed) return Promise.reject(closedError());
    const queue = this.#queues.get(route);
    if (queue && queue.waiters.length === 0 && queue.spares > 0 && monotonicNow() < queue.sparesUntil && !this.#useLocal()) {
      // A slot taken ahead by the last script run: no round trip (and, as with the in-process
      // limiter, a call admitted at once is not asked about its signal).
      queue.spares -= 1;
      this.#hold(route, 'redis');
      if (queue.spares <= SPARES / 4 && !queue.serving) {
        // Running low: more are asked for now, so that a steady caller never waits for Redis.
        queue.topUp = true;
        queue.serving = true;
        queueMicrotask(() => void this.#serve(route, queue));
      }
      return undefined;
    }
    const signal = admission?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#useLocal()) return this.#acquireLocal(route, admission);
    return this.#wait(route, this.#queue(route), admission);
  }

  #wait(route: string, queue: RouteQueue, admission: Admission | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      queue.waiters.push(new Waiter(admission, resolve, reject, (dropped) => this.#leave(queue, dropped)));
      if (!queue.serving) {
        queue.serving = true;
        // A microtask later, so the calls started in the same tick go in one script run.
        queueMicrotask(() => void this.#serve(route, queue));
      }
    });
  }

  #leave(queue: RouteQueue, waiter: Waiter): void {
    const index = queue.waiters.indexOf(waiter);
    if (index >= 0) queue.waiters.splice(index, 1);
    if (queue.waiters.length === 0) queue.nap.wake();
  }

  /** Asks Redis for slots for the route's waiting calls, in order, until none waits; settles what is pending on the way. */
  async #serve(route: string, queue: RouteQueue): Promise<void> {
    try {
      while ((queue.waiters.length > 0 || queue.topUp) && !this.#closed) {
        queue.topUp = false;
        if (this.#useLocal()) {
          for (const waiter of queue.waiters.splice(0)) this.#handOver(route, waiter);
          return;
        }
        let reply: Exchanged;
        try {
          reply = await this.#exchange(route, queue, () => {
            this.#expireSpares(route, queue);
            const asking = Math.min(queue.waiters.length, BATCH);
            // Spares go to a lone call (or a top-up): a queue that waits is served in order, from Redis.
            return { asking, offered: asking <= 1 ? SPARES : 0 };
          });
          this.#answered();
        } catch (error) {
          this.#storeFailed(error, route, queue);
          continue;
        }
        const { asking, admitted, spares, waitMs } = reply;
        if (spares > 0) this.#keepSpares(route, queue, spares);
        this.#admit(route, queue, admitted);
        if (queue.waiters.length === 0 || admitted === asking) continue;
        const wait = Math.max(1, waitMs);
        // A call whose deadline comes before the earliest slot fails now, as with the in-process limiter.
        for (const waiter of [...queue.waiters]) if (waiter.outlasts(wait)) waiter.drop(waiter.admission?.expired(wait));
        if (queue.waiters.length > 0) await queue.nap.sleep(Math.min(wait, STORE_MAX_POLL_MS));
      }
    } finally {
      queue.serving = false;
      // What came in after the last run is settled by the timer.
      if (queue.settles.length + queue.givenBack > 0) this.#settleLater(route, queue, false);
      this.#tidy(route, queue);
    }
  }

  /**
   * One run of {@link settleScript} for the route, after the route's run in progress (if any)
   * has been answered or given up on: `plan` says, at that point, how many calls ask and how
   * many spares are offered. A run given up on may still be executed by Redis: its answers go
   * again with the next run (the script counts them once), and a run soon corrects the count
   * it may have left (see {@link #correctSoon}).
   */
  async #exchange(route: string, queue: RouteQueue, plan: () => { asking: number; offered: number }): Promise<Exchanged> {
    const previous = queue.running;
    let finish = (): void => undefined;
    const current = new Promise<void>((resolve) => (finish = resolve));
    queue.running = current;
    try {
      await previous;
      const gates = this.#routeGates(await this.#keyPrefix(), route);
      const { asking, offered } = plan();
      const run = ++this.#runs;
      const { settles } = takePending(queue);
      for (const settle of settles) if (settle.firstRun === 0) settle.firstRun = run;
      try {
        const reply = (await withTimeout(
          settleScript.run(this.#redis, gates.keys, this.#settleArgs(gates, route, queue, run, settles, asking, offered)),
          this.#timeoutMs,
        )) as [number, number, number];
        queue.stale = false;
        return { asking, admitted: reply[0], spares: reply[1], waitMs: reply[2] };
      } catch (error) {
        queue.settles.unshift(...settles);
        this.#correctSoon(route, queue);
        throw error;
      }
    } finally {
      finish();
      if (queue.running === current) queue.running = undefined;
    }
  }

  /**
   * After a run given up on: Redis may execute it yet, admitting slots nobody will use or leaving
   * a count nobody settles. The next run of the route writes the count the process knows,
   * whatever that run did; this makes sure one comes, at once (it reaches Redis after the run
   * given up on), then every {@link STORE_RETRY_AFTER_MS} until Redis answers.
   */
  #correctSoon(route: string, queue: RouteQueue): void {
    const delayMs = queue.stale ? STORE_RETRY_AFTER_MS : 0;
    queue.stale = true;
    if (this.#closed || queue.correctTimer !== undefined) return;
    queue.correctTimer = setTimeout(() => {
      queue.correctTimer = undefined;
      void this.#correct(route, queue);
    }, delayMs);
    queue.correctTimer.unref?.();
  }

  async #correct(route: string, queue: RouteQueue): Promise<void> {
    if (queue.stale && !this.#closed) {
      try {
        await this.#exchange(route, queue, () => ({ asking: 0, offered: 0 }));
        this.#answered();
        this.#settleRest(route, queue);
      } catch (error) {
        this.#storeFailed(error, undefined, undefined);
      }
    }
    this.#tidy(route, queue);
  }

  /** How many of the route's requests Redis should count for this process once `settles` are applied: in flight, in hand, still to settle. */
  #flightOf(route: string, queue: RouteQueue): number {
    let held = 0;
    for (const slot of this.#held.get(route) ?? []) if (slot === 'redis') held += 1;
    return held + queue.spares + queue.settles.length;
  }

  /** The arguments of {@link settleScript} after the gates' own. */
  #settleArgs(
    gates: RouteGates,
    route: string,
    queue: RouteQueue,
    run: number,
    settles: Settle[],
    asking: number,
    offered: number,
  ): Array<string | number> {
    const args: Array<string | number> = [...gates.args, run, this.#flightOf(route, queue), settles.length, asking, offered, this.#maxPauseMs];
    const now = monotonicNow();
    for (const { sentAt, rateLimit, firstRun } of settles) {
      const described = rateLimit === undefined ? 0 : (gates.describedBy.get(rateLimit.limit) ?? 0);
      // A limit we were not configured with: only "none left until the reset" is safe to follow (spec part 9 rule 4).
      const pauseMs = rateLimit && described === 0 && rateLimit.remaining <= 0 ? this.#clampPause(rateLimit.resetSeconds * 1000) : 0;
      args.push(Math.max(0, now - sentAt), rateLimit?.remaining ?? -1, rateLimit ? rateLimit.resetSeconds * 1000 : -1, described, pauseMs, firstRun);
    }
    return args;
  }

  /**
   * Settles the route's pending answers: after {@link SETTLE_DELAY_MS}, or a microtask later
   * when `soon` (an answer that says the window is full, a full batch).
   */
  #settleLater(route: string, queue: RouteQueue, soon: boolean): void {
    if (queue.settleSoon) return;
    if (soon) {
      if (queue.settleTimer !== undefined) clearTimeout(queue.settleTimer);
      queue.settleTimer = undefined;
      queue.settleSoon = true;
      queueMicrotask(() => {
        queue.settleSoon = false;
        void this.#settle(route, queue);
      });
      return;
    }
    if (queue.settleTimer !== undefined) return;
    queue.settleTimer = setTimeout(() => {
      queue.settleTimer = undefined;
      void this.#settle(route, queue);
    }, this.#settleDelayMs());
    // Until settled an answer counts in this process's flight: an exit first loses nothing.
    queue.settleTimer.unref?.();
  }

  #settleDelayMs(): number {
    return Math.min(SETTLE_DELAY_MS, this.#limits.account.windowMs / 8);
  }

  #spareLifeMs(): number {
    return Math.min(SPARE_LIFE_MS, this.#limits.account.windowMs / 10);
  }

  /** By when slots taken ahead are back in Redis at the latest: their life, the settle delay, a round trip. */
  #aheadMs(): number {
    return this.#spareLifeMs() + this.#settleDelayMs() + 5;
  }

  /** One script run with the pending answers; what arrives meanwhile waits for the next. */
  async #settle(route: string, queue: RouteQueue): Promise<void> {
    if (queue.settles.length + queue.givenBack === 0) {
      this.#tidy(route, queue);
      return;
    }
    if (this.#useLocal()) {
      // Redis is not asked during the fallback's second; the answers wait for the correcting run,
      // which brings them and the route's count to Redis once it answers (rather than leave in
      // Redis a flight that only the lease would end).
      if (queue.correctTimer === undefined) this.#correctSoon(route, queue);
      return;
    }
    try {
      await this.#exchange(route, queue, () => ({ asking: 0, offered: 0 }));
      this.#answered();
    } catch (error) {
      // The answers are back in the queue; the correcting run, every second, takes them.
      this.#storeFailed(error, undefined, undefined);
      return;
    }
    this.#settleRest(route, queue);
    this.#tidy(route, queue);
  }

  /** More answers than one run takes: the next batch goes soon. */
  #settleRest(route: string, queue: RouteQueue): void {
    const left = queue.settles.length;
    if (left > 0 && !this.#closed) this.#settleLater(route, queue, left >= BATCH);
  }

  /** Slots taken ahead: handed out for {@link SPARE_LIFE_MS} at most, then given back. */
  #keepSpares(route: string, queue: RouteQueue, count: number): void {
    // The run that granted them found no pause: the spares in hand are as good as the new ones.
    queue.spares += count;
    const lifeMs = this.#spareLifeMs();
    queue.sparesUntil = monotonicNow() + lifeMs;
    if (queue.spareTimer !== undefined) clearTimeout(queue.spareTimer);
    queue.spareTimer = setTimeout(() => {
      queue.spareTimer = undefined;
      this.#expireSpares(route, queue, true);
      this.#tidy(route, queue);
    }, lifeMs);
    queue.spareTimer.unref?.();
  }

  /** Spares past their life, or all when `now`, go back to Redis. */
  #expireSpares(route: string, queue: RouteQueue, now = false): void {
    if (queue.spares === 0 || (!now && monotonicNow() < queue.sparesUntil)) return;
    queue.givenBack += queue.spares;
    queue.spares = 0;
    if (queue.spareTimer !== undefined) clearTimeout(queue.spareTimer);
    queue.spareTimer = undefined;
    if (!queue.serving) this.#settleLater(route, queue, false);
  }

  /** Slots granted go to the calls still waiting, oldest first; one nobody waits for any more is given back. */
  #admit(route: string, queue: RouteQueue, count: number): void {
    for (let i = 0; i < count; i++) {
      const waiter = queue.waiters.shift();
      if (waiter) {
        this.#hold(route, 'redis');
        waiter.admit();
      } else {
        queue.givenBack += 1;
      }
    }
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
      void this.#store(async () => {
        const gates = this.#routeGates(await this.#keyPrefix(), route);
        await renewScript.run(this.#redis, gates.renewKeys, [gates.field, ...gates.renewArgs]);
      });
    }
  }

  release(route: string, sentAt: number, rateLimit: RateLimitInfo | undefined): void {
    const slot = this.#unhold(route);
    if (slot === undefined) return;
    if (slot === 'local') {
      this.#local?.release(route, sentAt, rateLimit);
      return;
    }
    const queue = this.#queue(route);
    queue.settles.push({ sentAt, rateLimit, firstRun: 0 });
    const full = rateLimit !== undefined && rateLimit.remaining <= 0;
    // The window is full: every process should know now, and the spares in hand must not be used.
    if (full) this.#expireSpares(route, queue, true);
    this.#settleLater(route, queue, full || queue.settles.length >= BATCH);
  }

  giveBack(route: string): void {
    const slot = this.#unhold(route);
    if (slot === 'local') this.#local?.giveBack(route);
    else if (slot === 'redis') {
      const queue = this.#queue(route);
      queue.givenBack += 1;
      // Calls of the route waiting here ask again at once, the slot given back in the same run.
      if (queue.serving && queue.waiters.length > 0) queue.nap.wake();
      else this.#settleLater(route, queue, false);
    }
  }

  pause(route: string, ms: number): void {
    const pauseMs = this.#clampPause(ms);
    if (pauseMs === 0) return;
    this.#local?.pause(route, pauseMs);
    const queue = this.#queues.get(route);
    if (queue) this.#expireSpares(route, queue, true);
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
      await withTimeout(write(), this.#timeoutMs);
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
    // After close() the partner may close Redis at once: the last settle failing is no outage.
    if (this.#closed) return;
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof ConfigurationError) {
      for (const waiter of queue?.waiters.splice(0) ?? []) waiter.drop(error);
      return;
    }
    if (this.#policy === 'fail-closed') {
      for (const waiter of queue?.waiters.splice(0) ?? []) {
        waiter.drop(endError({ reason: 'limiter_unavailable', route, why: reason, cause: error }));
      }
      return;
    }
    this.#localUntil = monotonicNow() + STORE_RETRY_AFTER_MS;
    // A connection its owner closed is no outage to warn of: the process is shutting down.
    if (!this.#degraded && this.#redis.status !== 'end') {
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
      this.#hold(route, 'local');
      return Promise.resolve();
    }
    return pending.then(() => this.#hold(route, 'local'));
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

  /**
   * Rejects every waiting call with ClientClosedError, and sends Redis once, without waiting,
   * the answers not yet settled and the spare slots in hand (what does not arrive expires with
   * its lease). Leaves Redis and its client as they are.
   */
  close(): void {
    this.#closed = true;
    const reason = closedError();
    for (const [route, queue] of this.#queues) {
      for (const waiter of queue.waiters.splice(0)) waiter.drop(reason);
      queue.nap.wake();
      if (queue.settleTimer !== undefined) clearTimeout(queue.settleTimer);
      if (queue.spareTimer !== undefined) clearTimeout(queue.spareTimer);
      if (queue.correctTimer !== undefined) clearTimeout(queue.correctTimer);
      queue.settleTimer = queue.spareTimer = queue.correctTimer = undefined;
      queue.givenBack += queue.spares;
      queue.spares = 0;
      void this.#settle(route, queue);
    }
    this.#queues.clear();
    this.#stopRenewing();
    this.#local?.close(reason);
  }
}

/**
 * The answers (a batch at most) a script run takes over from the queue; the requests given back
 * are in the count the run writes.
 */
function takePending(queue: RouteQueue): { settles: Settle[] } {
  queue.givenBack = 0;
  return { settles: queue.settles.splice(0, BATCH) };
}

function closedError(): ClientClosedError {
  return endError({ reason: 'limiter_closed', limiter: 'fleet' });
}

function gate(name: string, limit: WindowLimit | undefined): { keys: string[]; limit: WindowLimit | undefined } {
  return { keys: GATE_KEYS.map((key) => `${name}:${key}`), limit };
}

/** A gate's limit, lease (one window and its margin), window and margin for the settle script; -1 for a pause-only gate. */
function gateArgs(limit: WindowLimit | undefined): [number, number, number, number] {
  if (!limit) return [-1, 0, 0, 0];
  const margin = marginMs(limit.windowMs);
  return [limit.limit, Math.ceil(limit.windowMs + margin), limit.windowMs, margin];
}
