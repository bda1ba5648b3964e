import { MAX_TIMER_MS } from '../shared/timer.js';

/** Longer waits than a timer takes (MAX_TIMER_MS) are chained. */
export { MAX_TIMER_MS };

/** A delay a timer can be armed with: NaN and negative are 0, above the range is the range's end. */
export function timerDelayMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return ms > MAX_TIMER_MS ? MAX_TIMER_MS : Math.ceil(ms);
}

/** One pending wait: settled by its timer, its own signal, or the registry's close(). */
class Sleeper {
  readonly #until: number;
  readonly #resolve: () => void;
  readonly #reject: (reason: unknown) => void;
  readonly #signal: AbortSignal | undefined;
  readonly #registry: Sleepers | undefined;
  #timer: ReturnType<typeof setTimeout>;

  constructor(ms: number, signal: AbortSignal | undefined, registry: Sleepers | undefined, resolve: () => void, reject: (reason: unknown) => void) {
    this.#until = monotonicNow() + ms;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    this.#registry = registry;
    this.#timer = setTimeout(this.#onTimer, timerDelayMs(ms));
    signal?.addEventListener('abort', this, { once: true });
  }

  // Node measures timers against the event loop's cached clock, so one may fire a little
  // before `ms` have passed: waiting out the rest keeps a Retry-After from being cut short.
  // A wait past the timer range is chained the same way.
  readonly #onTimer = (): void => {
    const leftMs = this.#until - monotonicNow();
    if (leftMs > 0) {
      this.#timer = setTimeout(this.#onTimer, timerDelayMs(leftMs));
      return;
    }
    this.#settle();
    this.#resolve();
  };

  /** The sleeper's own signal aborted. */
  handleEvent(): void {
    this.cancel(this.#signal?.reason);
  }

  cancel(reason: unknown): void {
    this.#settle();
    this.#reject(reason);
  }

  #settle(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this);
    this.#registry?.delete(this);
  }
}

/**
 * Every wait of one client, so that `close()` cancels them all by walking one set instead of
 * each wait listening on a shared signal (one listener per waiting call on one signal trips
 * Node's MaxListenersExceededWarning past ten).
 */
export class Sleepers {
  readonly #pending = new Set<Sleeper>();
  #closed: { reason: unknown } | undefined;

  /** Resolves after `ms` and never earlier; rejects when `signal` aborts or the registry closes. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closed.reason);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      this.#pending.add(new Sleeper(ms, signal, this, resolve, reject));
    });
  }

  /** @internal */
  delete(sleeper: Sleeper): void {
    this.#pending.delete(sleeper);
  }

  close(reason: unknown): void {
    this.#closed = { reason };
    for (const sleeper of [...this.#pending]) sleeper.cancel(reason);
  }
}

/** Resolves after `ms` and never earlier; rejects with the signal's reason when it aborts. A wait no registry closes. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    new Sleeper(ms, signal, undefined, resolve, reject);
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
