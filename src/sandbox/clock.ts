/**
 * The sandbox's own time. Everything time-based (token expiry, rate-limit windows, transaction
 * schedules, webhook retries) reads this clock, so tests can scale it or jump it forward instead
 * of waiting in real time.
 */
import { MAX_TIMER_MS } from '../shared/timer.js';

export interface SandboxClock {
  now(): Date;
  nowMs(): number;
  /** Runs `fn` after `ms` of sandbox time. Returns a function that cancels it. */
  setTimeout(fn: () => void, ms: number): () => void;
  /** Resolves after `ms` of sandbox time. */
  sleep(ms: number): Promise<void>;
  /** Jumps forward; every timer now due fires. */
  advance(ms: number): void;
  /** Sandbox milliseconds per real millisecond (1 = real time, 60 = a minute per second). */
  setScale(scale: number): void;
  readonly scale: number;
  /** Cancels every pending timer; the clock keeps telling time. */
  cancelAll(): void;
  /** Cancels every pending timer and sets the time and scale anew (what a sandbox reset does). */
  restart(startMs: number, scale: number): void;
  readonly pendingTimers: number;
}

/**
 * The latest time the clock may read: the end of year 9999, far inside Date's range, so every
 * timestamp the sandbox prints stays a valid ISO string whatever a test does to the clock.
 */
export const LATEST_CLOCK_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Sandbox ms per real ms at most: a year passes in about 32 real seconds. */
export const MAX_TIME_SCALE = 1_000_000;

interface Timer {
  id: number;
  dueMs: number;
  fn: () => void;
}

export function createClock(startMs: number = Date.now(), scale = 1): SandboxClock {
  if (!(scale > 0 && scale <= MAX_TIME_SCALE)) throw new RangeError(`timeScale must be > 0 and <= ${MAX_TIME_SCALE}`);
  let anchorVirtual = startMs;
  let anchorReal = performance.now();
  let currentScale = scale;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  let armed: ReturnType<typeof setTimeout> | undefined;

  const nowMs = (): number => Math.min(LATEST_CLOCK_MS, anchorVirtual + (performance.now() - anchorReal) * currentScale);

  const reanchor = (): void => {
    anchorVirtual = nowMs();
    anchorReal = performance.now();
  };

  const earliestDue = (limitMs: number): Timer | undefined => {
    let first: Timer | undefined;
    for (const t of timers.values()) {
      if (t.dueMs <= limitMs && (!first || t.dueMs < first.dueMs || (t.dueMs === first.dueMs && t.id < first.id))) first = t;
    }
    return first;
  };

  /**
   * Fires every timer due by `untilMs` in due order. Each fires with the clock reading its due
   * time, so a timer set from inside another (a transaction's next step) lands within the same
   * jump when it is due before `untilMs`.
   */
  const fireDue = (untilMs: number): void => {
    for (let timer = earliestDue(untilMs); timer; timer = earliestDue(untilMs)) {
      timers.delete(timer.id);
      if (timer.dueMs > nowMs()) {
        anchorVirtual = timer.dueMs;
        anchorReal = performance.now();
      }
      timer.fn();
    }
    if (untilMs > nowMs()) {
      anchorVirtual = untilMs;
      anchorReal = performance.now();
    }
  };

  const arm = (): void => {
    if (armed !== undefined) clearTimeout(armed);
    armed = undefined;
    if (timers.size === 0) return;
    let earliest = Infinity;
    for (const t of timers.values()) earliest = Math.min(earliest, t.dueMs);
    const realDelay = Math.max(0, (earliest - nowMs()) / currentScale);
    armed = setTimeout(
      () => {
        armed = undefined;
        fireDue(nowMs());
        arm();
      },
      Math.min(realDelay, MAX_TIMER_MS),
    );
    armed.unref?.();
  };

  const clock: SandboxClock = {
    now: () => new Date(Math.floor(nowMs())),
    nowMs: () => Math.floor(nowMs()),
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.set(id, { id, dueMs: nowMs() + Math.max(0, ms), fn });
      arm();
      return () => {
        if (timers.delete(id)) arm();
      };
    },
    sleep(ms) {
      return new Promise((resolve) => {
        clock.setTimeout(resolve, ms);
      });
    },
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError('advanceMs must be >= 0');
      if (ms > LATEST_CLOCK_MS - nowMs()) {
        throw new RangeError(`advanceMs must be at most ${Math.floor(LATEST_CLOCK_MS - nowMs())} (the clock stops at 9999-12-31)`);
      }
      fireDue(nowMs() + ms);
      arm();
    },
    setScale(next) {
      if (!(next > 0 && next <= MAX_TIME_SCALE)) throw new RangeError(`scale must be > 0 and <= ${MAX_TIME_SCALE}`);
      reanchor();
      currentScale = next;
      arm();
    },
    get scale() {
      return currentScale;
    },
    cancelAll() {
      timers.clear();
      arm();
    },
    restart(startMs, scale) {
      if (!(scale > 0 && scale <= MAX_TIME_SCALE)) throw new RangeError(`scale must be > 0 and <= ${MAX_TIME_SCALE}`);
      timers.clear();
      anchorVirtual = Math.min(LATEST_CLOCK_MS, startMs);
      anchorReal = performance.now();
      currentScale = scale;
      arm();
    },
    get pendingTimers() {
      return timers.size;
    },
  };
  return clock;
}
