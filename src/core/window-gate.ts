import type { RateLimitInfo, WindowLimit } from './types.js';
import { monotonicNow, timerDelayMs } from './sleep.js';

/** What a call waiting for a slot brings: its signal and the instant its own deadline ends. */
export interface Admission {
  readonly signal: AbortSignal | undefined;
  /** Monotonic ms; a wait that would end later fails with `expired()` instead. */
  readonly waitDeadline: number;
  /** The error of a call whose wait would end past its deadline (`waitMs`: the wait known, if any). */
  expired(waitMs: number | undefined): unknown;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  deadlineTimer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Added to every instant a slot frees up: the server's clock may run a little slower than ours,
 * and a window it measures as `windowMs` must be over on our clock too.
 */
export function marginMs(windowMs: number): number {
  return 2 + windowMs / 500;
}

/**
 * How long after a request was sent the server window that counted it certainly lasts, given the
 * `X-RateLimit-Reset` of its answer (`resetMs`): the server rounds the time left up to whole
 * seconds, so more than `resetMs` − 1 s was left when the request arrived, and the request arrived
 * after it was sent. Nothing more is known of where the window began: a server may open a window
 * with its first request, or on the clock's whole seconds and minutes, with another client's
 * request or none; so a window of a second or less is never located.
 */
function locatedEndMs(resetMs: number, windowMs: number): number {
  return Math.min(windowMs, resetMs - 1000);
}

/**
 * At most `limit` requests in any fixed window of `windowMs` on the server, however that window
 * is placed. A slot is taken at admission and given back at an instant by which the server
 * window that counted the request has certainly ended; only then may another request take it.
 * A request that shares a server window with an earlier one is therefore admitted while the
 * earlier one still holds its slot, so no server window counts more than `limit`.
 *
 * That instant is the earliest of three upper bounds on the end of the request's window:
 * - its answer time + `windowMs`: the server counted it on arrival, before we read the answer
 *   (the only bound when the server sends no X-RateLimit headers);
 * - its answer time + X-RateLimit-Reset seconds (spec part 8 rule 2; the server rounds up);
 * - the located window: an answer's headers place the end of the server window that counted its
 *   request after its send time + `locatedEndMs` (its Reset less a second) and by the answer's
 *   own free instant. Every request answered before that lower bound arrived inside that window
 *   or an earlier one, so it frees up at the upper bound; the window located furthest on is kept.
 *   A whole batch sent at the start of a server window of a minute thus frees up at once, one
 *   round trip after the window opened, and the next batch goes out right at the server's
 *   boundary instead of drifting by the spread of the answer times. Where the window began is
 *   not assumed: with windows on the clock's whole minutes, opened by another process, a window's
 *   first answer may come a second before its end, and says so in its Reset.
 *
 * A pause the server imposes (a 429's Retry-After, Remaining 0 until the reset) is believed for at
 * most `maxPauseMs` (the client's `maxServerWaitMs`) from the answer that imposed it: one bogus
 * header never holds a route longer, and from then on the server is asked again.
 *
 * Admission is synchronous while capacity remains; a timer exists only while someone waits.
 */
export class WindowGate {
  readonly limit: number;
  readonly windowMs: number;
  readonly #marginMs: number;
  readonly #maxPauseMs: number;
  /**
   * When finished requests stop counting, ascending, and how many stop at each instant;
   * entries before `#head` are past. Instants are rounded up to `#stepMs`, so a large limit
   * keeps about `windowMs / #stepMs` entries however many requests its window holds.
   */
  #freeAt: number[] = [];
  #weight: number[] = [];
  #head = 0;
  /** Sum of the weights from `#head` on: the finished requests still counted. */
  #counted = 0;
  readonly #stepMs: number;
  #inflight = 0;
  /** Until when nobody is admitted: the end of the server's pause (at most `maxPauseMs` after it was imposed). */
  #pausedUntil = 0;
  /** Set by `close()`: every acquire is refused with this reason from then on. */
  #closed: { reason: unknown } | undefined;
  /** The server window located furthest on by an answer's headers: it ends within (after, by]. */
  #windowEndsAfter = Number.NEGATIVE_INFINITY;
  #windowEndsBy = Number.POSITIVE_INFINITY;
  #waiters: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(limit: WindowLimit, maxPauseMs = Number.POSITIVE_INFINITY) {
    this.limit = limit.limit;
    this.windowMs = limit.windowMs;
    this.#marginMs = marginMs(limit.windowMs);
    this.#maxPauseMs = maxPauseMs;
    this.#stepMs = Math.max(1, limit.windowMs / 1000);
  }

  /** 0 when admitted, else the milliseconds until a slot may free up (Infinity: at the next release). */
  #take(now: number): number {
    if (now < this.#pausedUntil) return this.#pausedUntil - now;
    if (this.limit === Number.POSITIVE_INFINITY) return 0;
    const log = this.#freeAt;
    const weight = this.#weight;
    let head = this.#head;
    while (head < log.length && (log[head] as number) <= now) this.#counted -= weight[head++] as number;
    if (head > 512 && head * 2 > log.length) {
      log.splice(0, head);
      weight.splice(0, head);
      head = 0;
    }
    this.#head = head;
    if (this.#inflight + this.#counted < this.limit) {
      this.#inflight += 1;
      return 0;
    }
    return this.#counted > 0 ? (log[head] as number) - now : Number.POSITIVE_INFINITY;
  }

  /**
   * The admitted request is over. `sentAt` is when it left; `rateLimit` the answer's headers
   * when they describe this gate's limit, undefined when it failed or they describe another.
   */
  release(sentAt: number, rateLimit: RateLimitInfo | undefined): void {
    if (this.limit === Number.POSITIVE_INFINITY) return;
    this.#inflight -= 1;
    const now = monotonicNow();
    let freeAt = now + this.windowMs;
    if (rateLimit) {
      freeAt = Math.min(freeAt, now + rateLimit.resetSeconds * 1000);
      const endsAfter = sentAt + locatedEndMs(rateLimit.resetSeconds * 1000, this.windowMs);
      if (endsAfter > this.#windowEndsAfter) {
        this.#windowEndsAfter = endsAfter;
        this.#windowEndsBy = freeAt;
      }
    }
    if (now < this.#windowEndsAfter) freeAt = Math.min(freeAt, this.#windowEndsBy);
    freeAt += this.#marginMs;
    this.#insert(freeAt);
    // Remaining 0 also counts other clients of the account: nothing more fits until that window
    // ends. A pause the server imposed, believed for maxPauseMs at most like a Retry-After.
    if (rateLimit && rateLimit.remaining <= 0) this.#pause(freeAt, now);
    if (this.#waiters.length > 0) {
      this.#clearTimer();
      this.#drain();
    }
  }

  /** An admitted request that was never sent: its slot is free at once. */
  giveBack(): void {
    if (this.limit === Number.POSITIVE_INFINITY) return;
    this.#inflight -= 1;
    if (this.#waiters.length > 0) {
      this.#clearTimer();
      this.#drain();
    }
  }

  /**
   * Appends keeping the log sorted without a scan: a slot that would free before the newest one
   * is held until then instead, and an instant is rounded up to the next step, so answers close
   * together share one entry. Holding a slot longer is always safe; a sorted insert would cost
   * a splice per answer once `X-RateLimit-Reset` (whole seconds) puts answers out of order.
   */
  #insert(freeAt: number): void {
    const log = this.#freeAt;
    const last = log.length - 1;
    this.#counted += 1;
    if (last >= this.#head && freeAt <= (log[last] as number)) {
      this.#weight[last] = (this.#weight[last] as number) + 1;
      return;
    }
    const step = this.#stepMs;
    log.push(Math.ceil(freeAt / step) * step);
    this.#weight.push(1);
  }

  /**
   * Undefined when admitted at once. Otherwise a promise that resolves on admission, rejects
   * with the signal's reason, or with `admission.expired()` when the wait would end past the
   * call's deadline: at once when the pause or the freeing slot is known to end later, else
   * when the deadline comes.
   */
  acquire(admission?: Admission): Promise<void> | undefined {
    if (this.#closed) return Promise.reject(this.#closed.reason);
    let now = monotonicNow();
    let knownWaitMs: number | undefined;
    if (this.#waiters.length === 0) {
      const wait = this.#take(now);
      if (wait === 0) return undefined;
      if (wait !== Number.POSITIVE_INFINITY) knownWaitMs = wait;
    }
    const signal = admission?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (admission) {
      now = monotonicNow();
      const deadline = admission.waitDeadline;
      if (this.#pausedUntil > deadline) return Promise.reject(admission.expired(this.#pausedUntil - now));
      if (knownWaitMs !== undefined && now + knownWaitMs > deadline) return Promise.reject(admission.expired(knownWaitMs));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined, deadlineTimer: undefined };
      if (signal) {
        waiter.onAbort = () => this.#drop(waiter, signal.reason);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      if (admission && admission.waitDeadline !== Number.POSITIVE_INFINITY) {
        const onDeadline = (): void => {
          const leftMs = admission.waitDeadline - monotonicNow();
          if (leftMs > 0) waiter.deadlineTimer = setTimeout(onDeadline, timerDelayMs(leftMs));
          else this.#drop(waiter, admission.expired(undefined));
        };
        waiter.deadlineTimer = setTimeout(onDeadline, timerDelayMs(admission.waitDeadline - monotonicNow()));
      }
      this.#waiters.push(waiter);
      if (this.#timer === undefined) this.#drain();
    });
  }

  /** A waiter gives up (its signal or its deadline): out of the queue, rejected. */
  #drop(waiter: Waiter, reason: unknown): void {
    const index = this.#waiters.indexOf(waiter);
    if (index < 0) return;
    this.#waiters.splice(index, 1);
    this.#detach(waiter);
    waiter.reject(reason);
    if (this.#waiters.length === 0) this.#clearTimer();
  }

  #detach(waiter: Waiter): void {
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    if (waiter.deadlineTimer !== undefined) clearTimeout(waiter.deadlineTimer);
  }

  /** Holds the gate until `until` (monotonic ms), a pause the server imposed: a 429's Retry-After, or Remaining 0 of a limit this gate does not know. */
  pauseUntil(until: number): void {
    // Written so that NaN is no pause at all.
    if (!(until > this.#pausedUntil)) return;
    this.#pause(until, monotonicNow());
    if (this.#waiters.length > 0) {
      this.#clearTimer();
      this.#drain();
    }
  }

  /** Nobody is admitted before `until`, or `maxPauseMs` from now if that comes first. */
  #pause(until: number, now: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, Math.min(until, now + this.#maxPauseMs));
  }

  #drain = (): void => {
    this.#timer = undefined;
    while (this.#waiters.length > 0) {
      const wait = this.#take(monotonicNow());
      if (wait > 0) {
        // A wait past the timer range is chained: the drain re-checks and re-arms.
        if (wait !== Number.POSITIVE_INFINITY) this.#timer = setTimeout(this.#drain, timerDelayMs(wait));
        return;
      }
      const waiter = this.#waiters.shift() as Waiter;
      this.#detach(waiter);
      waiter.resolve();
    }
  };

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Rejects every waiting call with `reason`, and every later acquire: no timer is armed again. */
  close(reason: unknown): void {
    this.#closed = { reason };
    this.#clearTimer();
    for (const waiter of this.#waiters.splice(0)) {
      this.#detach(waiter);
      waiter.reject(reason);
    }
  }
}
