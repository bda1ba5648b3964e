/**
 * The sandbox time the webhook domain waits on: retry delays, delivery timeouts and voice stream
 * pacing all run on it, so a scaled or advanced sandbox clock makes them take milliseconds.
 */
export interface Scheduler {
  /** Sandbox time, ms since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` of sandbox time; rejects with the signal's reason once it aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Rejects when `signal` aborts, for racing against work that cannot take a signal itself. */
export function abortedPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** A scheduler on wall time divided by `timeScale` (10 makes a 30 s wait last 3 s). */
export function wallClockScheduler(timeScale = 1, now: () => number = Date.now): Scheduler {
  return {
    now,
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(signal.reason);
        };
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        }, Math.max(0, ms / timeScale));
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
