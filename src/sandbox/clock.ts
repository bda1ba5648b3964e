/**
 * The sandbox's own time. Everything time-based (token expiry, rate-limit windows, transaction
 * schedules, webhook retries) reads this clock, so tests can scale it or jump it forward instead
 * of waiting in real time.
 */
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
  readonly pendingTimers: number;
}

interface Timer {
  id: number;
  dueMs: number;
  fn: () => void;
}

export function createClock(startMs: number = Date.now(), scale = 1): SandboxClock {
  if (!(scale > 0)) throw new RangeError('timeScale must be > 0');
  let anchorVirtual = startMs;
  let anchorReal = performance.now();
  let currentScale = scale;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  let armed: ReturnType<typeof setTimeout> | undefined;

  const nowMs = (): number => anchorVirtual + (performance.now() - anchorReal) * currentScale;

  const reanchor = (): void => {
    anchorVirtual = nowMs();
    anchorReal = performance.now();
  };

  const fireDue = (): void => {
    const now = nowMs();
    const due = [...timers.values()].filter((t) => t.dueMs <= now).sort((x, y) => x.dueMs - y.dueMs || x.id - y.id);
    for (const timer of due) {
      timers.delete(timer.id);
      timer.fn();
    }
  };

  const arm = (): void => {
    if (armed !== undefined) clearTimeout(armed);
    armed = undefined;
    if (timers.size === 0) return;
    let earliest = Infinity;
    for (const t of timers.values()) earliest = Math.min(earliest, t.dueMs);
    const realDelay = Math.max(0, (earliest - nowMs()) / currentScale);
    armed = setTimeout(() => {
      armed = undefined;
      fireDue();
      arm();
    }, Math.min(realDelay, 2_147_483_647));
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
      anchorVirtual += ms;
      fireDue();
      arm();
    },
    setScale(next) {
      if (!(next > 0)) throw new RangeError('scale must be > 0');
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
    get pendingTimers() {
      return timers.size;
    },
  };
  return clock;
}
