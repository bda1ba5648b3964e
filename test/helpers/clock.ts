import { afterEach, beforeEach, vi } from 'vitest';

/**
 * The clocks a timing test fakes: timers, `Date` and `performance.now()`. Both the client and the
 * in-process test server read these, so both live on the same fake timeline, while sockets and
 * `setImmediate` stay real: requests still cross loopback for real, only waiting costs nothing.
 */
const FAKED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] as const;

/** Fakes the clocks from now until `vi.useRealTimers()`. Start servers after it, so they read the fake clock from their start. */
export function installFakeClock(): void {
  vi.useFakeTimers({ toFake: [...FAKED] });
}

/** Fake clocks for every test of the calling file or describe block (call after `useTestServer()`, so they are restored before it tears down). */
export function useFakeClock(): void {
  beforeEach(installFakeClock);
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** Real turns of the event loop between two steps of the fake clock: time for loopback I/O to land. */
const IO_TURNS = 8;
/** How far the fake clock moves per step. Small against any timeout a test sets, so I/O still in flight is never timed out by a step. */
const STEP_MS = 25;
/** Fake time after which a call that has not settled counts as hung. */
const GIVE_UP_MS = 10 * 60_000;

/**
 * Settles like `promise`, moving the fake clock forward in small steps whenever the event loop has
 * had its turns: every wait the client makes (a rate-limit slot, Retry-After, backoff) passes at
 * once in real time, but never sooner on the clock the client and the server read.
 */
export async function settleOnFakeClock<T>(promise: Promise<T>): Promise<T> {
  let settled = false;
  const done = promise.finally(() => (settled = true));
  done.catch(() => undefined);
  for (let advanced = 0; !settled; advanced += STEP_MS) {
    if (advanced > GIVE_UP_MS) throw new Error(`still pending after ${GIVE_UP_MS} ms of fake time`);
    for (let turn = 0; turn < IO_TURNS && !settled; turn++) await new Promise((resolve) => setImmediate(resolve));
    if (!settled) await vi.advanceTimersByTimeAsync(STEP_MS);
  }
  return promise;
}

/** A timer of the fake clock as an assertion names it: its callback's name (or source) and delay. */
interface PendingTimer {
  readonly callback: string;
  readonly delayMs: number;
}

/** The fake clock's pending timers, named: a failing `expect(pendingTimers()).toEqual([])` says which timer was left. */
export function pendingTimers(): PendingTimer[] {
  const clock = (globalThis.setTimeout as unknown as { clock?: { timers?: Record<string, { func: unknown; delay?: number }> } }).clock;
  return Object.values(clock?.timers ?? {}).map((timer) => ({
    callback: typeof timer.func === 'function' ? timer.func.name || String(timer.func).slice(0, 200) : String(timer.func),
    delayMs: timer.delay ?? 0,
  }));
}

/**
 * Moves the fake clock `totalMs` forward in `rounds` steps, each after the event loop's real
 * turns: a timer loopback I/O arms late (a connection's keep-alive, once its answer has landed
 * under load) is armed before a step, and ends within the next. Keep `totalMs` below the shortest
 * wait a test means to catch, so a timer left behind is still pending after it.
 */
export async function outwaitConnections(totalMs: number, rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await realTurns();
    await vi.advanceTimersByTimeAsync(totalMs / rounds);
  }
}

/** `count` real turns of the event loop (`setImmediate`, which no fake clock here replaces), the fake clock standing still. */
export async function realTurns(count = IO_TURNS): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Turns the event loop until `condition` holds, the fake clock standing still, for 10 s of real
 * time at most (read from `process.hrtime`, which no fake clock replaces): the assertion after it
 * says what did not happen.
 */
export async function untilReal(condition: () => Promise<boolean> | boolean): Promise<void> {
  const start = process.hrtime.bigint();
  while (!(await condition()) && process.hrtime.bigint() - start < 10_000_000_000n) await realTurns(5);
}
