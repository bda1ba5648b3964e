/**
 * Resolves after `ms` and never earlier, or rejects with the signal's reason as soon as it
 * aborts. Leaves no timer behind.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const until = monotonicNow() + ms;
  return new Promise<void>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // Node measures timers against the event loop's cached clock, so one may fire a little
    // before `ms` have passed: waiting out the rest keeps a Retry-After from being cut short.
    const onTimer = (): void => {
      const leftMs = until - monotonicNow();
      if (leftMs > 0) {
        timer = setTimeout(onTimer, Math.ceil(leftMs));
        return;
      }
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    timer = setTimeout(onTimer, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Settles like `promise`, but rejects with the signal's reason the moment the signal aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A monotonic clock in milliseconds, immune to wall-clock jumps. */
export function monotonicNow(): number {
  return performance.now();
}
