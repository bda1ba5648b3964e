import { STORE_MAX_POLL_MS, STORE_RETRY_AFTER_MS } from '../core/defaults.js';
import { monotonicNow } from '../core/sleep.js';
import type { Admission } from '../core/window-gate.js';
import type { Batch, RouteRuns, Settle } from './route-runs.js';
import type { SettleReply } from './settle-script.js';
import { Nap, Waiter } from './waiters.js';

/**
 * The fleet limiter's queue, one per route: who waits, in what order and for how long; the
 * answers and spare slots it holds until they are settled or given back, and the timers that
 * do it; the hand-over of its calls to the in-memory fallback. What is sent to Redis is
 * route-runs.ts's business; the store-error policy is the limiter's.
 */

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

/** How long the queues of a limiter hold answers and spares, from the account's window. */
export interface QueueTiming {
  settleDelayMs: number;
  spareLifeMs: number;
  /** By when slots taken ahead are back in Redis at the latest: their life, the settle delay, a round trip. */
  aheadMs: number;
}

export function queueTiming(accountWindowMs: number): QueueTiming {
  const settleDelayMs = Math.min(SETTLE_DELAY_MS, accountWindowMs / 8);
  const spareLifeMs = Math.min(SPARE_LIFE_MS, accountWindowMs / 10);
  return { settleDelayMs, spareLifeMs, aheadMs: spareLifeMs + settleDelayMs + 5 };
}

/** What a run asks for: slots for the calls asking, and how many spares are offered. */
interface Ask {
  asking: number;
  offered: number;
}

/** What a run answered, with how many calls it asked for. */
interface Exchanged extends SettleReply {
  asking: number;
}

/** What a queue asks of its limiter: the store-error policy, the slots held, the in-memory fallback. */
export interface QueueOwner {
  /** The limiter was closed. */
  closed(): boolean;
  /** The in-memory fallback serves for now (fail-open after a store failure). */
  useLocal(): boolean;
  /** Redis answered a run. */
  answered(): void;
  /** Redis failed: the reason the route's waiting calls fail with, or undefined when they wait on. */
  storeFailed(error: unknown, route: string): Error | undefined;
  /** A call of the route was admitted on a slot from Redis. */
  holdFromRedis(route: string): void;
  /** The route's requests in flight on slots from Redis. */
  heldFromRedis(route: string): number;
  /** A slot of the in-memory fallback, held once it resolves. */
  acquireLocal(route: string, admission: Admission | undefined): Promise<void>;
  giveBack(route: string): void;
  /** The queue has nothing pending: it may be forgotten. */
  idle(queue: RouteQueue): void;
}

/**
 * One route's calls in this process waiting for Redis, in the order they came: the answers and
 * unsent requests not yet settled, the spare slots in hand, and the timers that settle them and
 * give them back. One loop at a time serves the calls, and the route's runs go one at a time,
 * each counting what the one before admitted.
 */
export class RouteQueue {
  readonly route: string;
  readonly #owner: QueueOwner;
  readonly #runs: RouteRuns;
  readonly #timing: QueueTiming;
  readonly #waiters: Waiter[] = [];
  readonly #settles: Settle[] = [];
  /** Requests admitted by Redis that never left, or spares unused. */
  #givenBack = 0;
  /** Slots taken ahead by the last script run, not handed out yet. */
  #spares = 0;
  /** Monotonic ms after which the spares are no longer handed out. */
  #sparesUntil = 0;
  /** The loop asking for slots runs (at most one per route). */
  #serving = false;
  /** The loop is to ask for spares even if no call waits. */
  #topUp = false;
  /** The delayed settle, when one is due. */
  #settleTimer: ReturnType<typeof setTimeout> | undefined;
  /** A settle is due a microtask later. */
  #settleSoon = false;
  /** Gives the spares back when their life ends. */
  #spareTimer: ReturnType<typeof setTimeout> | undefined;
  /** The run in progress. */
  #running: Promise<void> | undefined;
  /**
   * A run was given up on (timed out, failed): Redis may hold a count for this route that the
   * process does not know of, until a run of the route is executed after it.
   */
  #stale = false;
  /** The run that corrects the count, while one is due. */
  #correctTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #nap = new Nap();

  constructor(route: string, owner: QueueOwner, runs: RouteRuns, timing: QueueTiming) {
    this.route = route;
    this.#owner = owner;
    this.#runs = runs;
    this.#timing = timing;
  }

  /** Nothing of the route is pending: no call, answer, slot, timer or run. */
  #isIdle(): boolean {
    if (this.#serving || this.#settleTimer !== undefined || this.#settleSoon || this.#spareTimer !== undefined) return false;
    if (this.#running !== undefined || this.#stale || this.#correctTimer !== undefined) return false;
    return this.#waiters.length + this.#settles.length + this.#givenBack + this.#spares === 0;
  }

  #tidy(): void {
    if (this.#isIdle()) this.#owner.idle(this);
  }

  /**
   * Hands out a slot taken ahead by the last script run, when one is in hand and no call waits:
   * no round trip (and, as with the in-process limiter, a call admitted at once is not asked
   * about its signal). Running low, it asks for more now, so a steady caller never waits for Redis.
   */
  takeSpare(): boolean {
    if (this.#waiters.length > 0 || this.#spares === 0 || monotonicNow() >= this.#sparesUntil || this.#owner.useLocal()) return false;
    this.#spares -= 1;
    if (this.#spares <= SPARES / 4 && !this.#serving) {
      this.#topUp = true;
      this.#serving = true;
      queueMicrotask(() => void this.#serve());
    }
    return true;
  }

  /** A call waits its turn for a slot from Redis. */
  wait(admission: Admission | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push(new Waiter(admission, resolve, reject, (dropped) => this.#leave(dropped)));
      if (!this.#serving) {
        this.#serving = true;
        // A microtask later, so the calls started in the same tick go in one script run.
        queueMicrotask(() => void this.#serve());
      }
    });
  }

  #leave(waiter: Waiter): void {
    const index = this.#waiters.indexOf(waiter);
    if (index >= 0) this.#waiters.splice(index, 1);
    if (this.#waiters.length === 0) this.#nap.wake();
  }

  /** Every waiting call fails with `reason`. */
  #dropAll(reason: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.drop(reason);
  }

  /** Asks Redis for slots for the waiting calls, in order, until none waits; settles what is pending on the way. */
  async #serve(): Promise<void> {
    try {
      while ((this.#waiters.length > 0 || this.#topUp) && !this.#owner.closed()) {
        this.#topUp = false;
        if (this.#owner.useLocal()) {
          for (const waiter of this.#waiters.splice(0)) this.#handOver(waiter);
          return;
        }
        let reply: Exchanged;
        try {
          reply = await this.#exchange(() => {
            this.expireSpares(false);
            const asking = Math.min(this.#waiters.length, BATCH);
            // Spares go to a lone call (or a top-up): a queue that waits is served in order, from Redis.
            return { asking, offered: asking <= 1 ? SPARES : 0 };
          });
          this.#owner.answered();
        } catch (error) {
          const reason = this.#owner.storeFailed(error, this.route);
          if (reason !== undefined) this.#dropAll(reason);
          continue;
        }
        const { asking, admitted, spares, waitMs } = reply;
        if (spares > 0) this.#keepSpares(spares);
        this.#admit(admitted);
        if (this.#waiters.length === 0 || admitted === asking) continue;
        const wait = Math.max(1, waitMs);
        // A call whose deadline comes before the earliest slot fails now, as with the in-process limiter.
        for (const waiter of [...this.#waiters]) if (waiter.outlasts(wait)) waiter.drop(waiter.admission?.expired(wait));
        if (this.#waiters.length > 0) await this.#nap.sleep(Math.min(wait, STORE_MAX_POLL_MS));
      }
    } finally {
      this.#serving = false;
      // What came in after the last run is settled by the timer.
      if (this.#settles.length + this.#givenBack > 0) this.#settleLater(false);
      this.#tidy();
    }
  }

  /**
   * One settle run for the route, after its run in progress (if any) has been answered or given
   * up on: `plan` says, at that point, how many calls ask and how many spares are offered. The
   * run takes the pending answers (a batch at most; the requests given back are in the count it
   * writes). A run given up on may still be executed by Redis: its answers go again with the
   * next run (the script counts them once), and a run soon corrects the count it may have left
   * (see {@link #correctSoon}).
   */
  async #exchange(plan: () => Ask): Promise<Exchanged> {
    const previous = this.#running;
    let finish = (): void => undefined;
    const current = new Promise<void>((resolve) => (finish = resolve));
    this.#running = current;
    let sent: Batch | undefined;
    try {
      await previous;
      const reply = await this.#runs.settle(this.route, (run) => {
        const { asking, offered } = plan();
        this.#givenBack = 0;
        const settles = this.#settles.splice(0, BATCH);
        for (const settle of settles) if (settle.firstRun === 0) settle.firstRun = run;
        sent = { settles, flight: this.#owner.heldFromRedis(this.route) + this.#spares + this.#settles.length, asking, offered };
        return sent;
      });
      this.#stale = false;
      return { asking: (sent as Batch).asking, ...reply };
    } catch (error) {
      if (sent) {
        this.#settles.unshift(...sent.settles);
        this.#correctSoon();
      }
      throw error;
    } finally {
      finish();
      if (this.#running === current) this.#running = undefined;
    }
  }

  /**
   * After a run given up on: Redis may execute it yet, admitting slots nobody will use or leaving
   * a count nobody settles. The next run of the route writes the count the process knows,
   * whatever that run did; this makes sure one comes, at once (it reaches Redis after the run
   * given up on), then every {@link STORE_RETRY_AFTER_MS} until Redis answers.
   */
  #correctSoon(): void {
    const delayMs = this.#stale ? STORE_RETRY_AFTER_MS : 0;
    this.#stale = true;
    if (this.#owner.closed() || this.#correctTimer !== undefined) return;
    this.#correctTimer = setTimeout(() => {
      this.#correctTimer = undefined;
      void this.#correct();
    }, delayMs);
    this.#correctTimer.unref?.();
  }

  async #correct(): Promise<void> {
    if (this.#stale && !this.#owner.closed()) {
      try {
        await this.#exchange(() => ({ asking: 0, offered: 0 }));
        this.#owner.answered();
        this.#settleRest();
      } catch (error) {
        this.#owner.storeFailed(error, this.route);
      }
    }
    this.#tidy();
  }

  /** A request of the route was answered: it counts until settled. */
  answered(settle: Settle): void {
    this.#settles.push(settle);
    const full = settle.rateLimit !== undefined && settle.rateLimit.remaining <= 0;
    // The window is full: every process should know now, and the spares in hand must not be used.
    if (full) this.expireSpares(true);
    this.#settleLater(full || this.#settles.length >= BATCH);
  }

  /** A request admitted by Redis never left. */
  giveBack(): void {
    this.#givenBack += 1;
    // Calls of the route waiting here ask again at once, the slot given back in the same run.
    if (this.#serving && this.#waiters.length > 0) this.#nap.wake();
    else this.#settleLater(false);
  }

  /**
   * Settles the route's pending answers: after the settle delay, or a microtask later when
   * `soon` (an answer that says the window is full, a full batch).
   */
  #settleLater(soon: boolean): void {
    if (this.#settleSoon) return;
    if (soon) {
      if (this.#settleTimer !== undefined) clearTimeout(this.#settleTimer);
      this.#settleTimer = undefined;
      this.#settleSoon = true;
      queueMicrotask(() => {
        this.#settleSoon = false;
        void this.#settle();
      });
      return;
    }
    if (this.#settleTimer !== undefined) return;
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = undefined;
      void this.#settle();
    }, this.#timing.settleDelayMs);
    // Until settled an answer counts in this process's flight: an exit first loses nothing.
    this.#settleTimer.unref?.();
  }

  /** One script run with the pending answers; what arrives meanwhile waits for the next. */
  async #settle(): Promise<void> {
    if (this.#settles.length + this.#givenBack === 0) {
      this.#tidy();
      return;
    }
    if (this.#owner.useLocal()) {
      // Redis is not asked during the fallback's second; the answers wait for the correcting run,
      // which brings them and the route's count to Redis once it answers (rather than leave in
      // Redis a flight that only the lease would end).
      if (this.#correctTimer === undefined) this.#correctSoon();
      return;
    }
    try {
      await this.#exchange(() => ({ asking: 0, offered: 0 }));
      this.#owner.answered();
    } catch (error) {
      // The answers are back in the queue; the correcting run, every second, takes them.
      this.#owner.storeFailed(error, this.route);
      return;
    }
    this.#settleRest();
    this.#tidy();
  }

  /** More answers than one run takes: the next batch goes soon. */
  #settleRest(): void {
    const left = this.#settles.length;
    if (left > 0 && !this.#owner.closed()) this.#settleLater(left >= BATCH);
  }

  /** Slots taken ahead: handed out for the spares' life at most, then given back. */
  #keepSpares(count: number): void {
    // The run that granted them found no pause: the spares in hand are as good as the new ones.
    this.#spares += count;
    const lifeMs = this.#timing.spareLifeMs;
    this.#sparesUntil = monotonicNow() + lifeMs;
    if (this.#spareTimer !== undefined) clearTimeout(this.#spareTimer);
    this.#spareTimer = setTimeout(() => {
      this.#spareTimer = undefined;
      this.expireSpares(true);
      this.#tidy();
    }, lifeMs);
    this.#spareTimer.unref?.();
  }

  /** Spares past their life, or all when `now`, go back to Redis. */
  expireSpares(now: boolean): void {
    if (this.#spares === 0 || (!now && monotonicNow() < this.#sparesUntil)) return;
    this.#givenBack += this.#spares;
    this.#spares = 0;
    if (this.#spareTimer !== undefined) clearTimeout(this.#spareTimer);
    this.#spareTimer = undefined;
    if (!this.#serving) this.#settleLater(false);
  }

  /** Slots granted go to the calls still waiting, oldest first; one nobody waits for any more is given back. */
  #admit(count: number): void {
    for (let i = 0; i < count; i++) {
      const waiter = this.#waiters.shift();
      if (waiter) {
        this.#owner.holdFromRedis(this.route);
        waiter.admit();
      } else {
        this.#givenBack += 1;
      }
    }
  }

  /** A call that waited for Redis goes on waiting in the in-process limiter. */
  #handOver(waiter: Waiter): void {
    this.#owner.acquireLocal(this.route, waiter.admission).then(
      () => {
        if (waiter.settled) this.#owner.giveBack(this.route);
        else waiter.admit();
      },
      (reason: unknown) => waiter.drop(reason),
    );
  }

  /**
   * Every waiting call fails with `reason`; the timers stop, and one run sends Redis, without
   * waiting, the answers not yet settled and the spare slots in hand.
   */
  close(reason: unknown): void {
    this.#dropAll(reason);
    this.#nap.wake();
    if (this.#settleTimer !== undefined) clearTimeout(this.#settleTimer);
    if (this.#spareTimer !== undefined) clearTimeout(this.#spareTimer);
    if (this.#correctTimer !== undefined) clearTimeout(this.#correctTimer);
    this.#settleTimer = this.#spareTimer = this.#correctTimer = undefined;
    this.#givenBack += this.#spares;
    this.#spares = 0;
    void this.#settle();
  }
}
