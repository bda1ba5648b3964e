import type { SandboxClock } from '../clock.js';

/**
 * The sandbox time the webhook domain waits on: retry delays and voice stream pacing run on it,
 * so a scaled or advanced sandbox clock makes them take milliseconds. How long a receiver gets
 * to answer is real time instead (SandboxOptions.deliveryTimeoutMs).
 */
export interface Scheduler {
  /** Sandbox time, ms since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` of sandbox time; rejects with the signal's reason once it aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The scheduler over the sandbox clock: scaling or advancing the clock speeds every wait. */
export function clockScheduler(clock: SandboxClock): Scheduler {
  return {
    now: () => clock.nowMs(),
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        const onAbort = (): void => {
          cancel();
          reject(signal.reason);
        };
        const cancel = clock.setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
