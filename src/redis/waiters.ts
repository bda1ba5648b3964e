import { timerDelayMs, monotonicNow } from '../core/sleep.js';
import type { Admission } from '../core/window-gate.js';

/** One call waiting for a slot: settled once, by admission, its signal, its deadline or close. */
export class Waiter {
  readonly admission: Admission | undefined;
  readonly #resolve: () => void;
  readonly #reject: (reason: unknown) => void;
  readonly #onDrop: (waiter: Waiter) => void;
  #onAbort: (() => void) | undefined;
  #deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  settled = false;

  constructor(admission: Admission | undefined, resolve: () => void, reject: (reason: unknown) => void, onDrop: (waiter: Waiter) => void) {
    this.admission = admission;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#onDrop = onDrop;
    const signal = admission?.signal;
    if (signal) {
      this.#onAbort = () => this.drop(signal.reason);
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
    if (admission && admission.waitDeadline !== Number.POSITIVE_INFINITY) this.#armDeadline(admission);
  }

  #armDeadline(admission: Admission): void {
    const leftMs = admission.waitDeadline - monotonicNow();
    // A deadline past the timer range is chained: re-checked and re-armed when the timer fires.
    this.#deadlineTimer = setTimeout(() => {
      if (admission.waitDeadline - monotonicNow() > 0) this.#armDeadline(admission);
      else this.drop(admission.expired(undefined));
    }, timerDelayMs(leftMs));
  }

  /** True when a wait of `waitMs` from now would end past this call's deadline. */
  outlasts(waitMs: number): boolean {
    return this.admission !== undefined && monotonicNow() + waitMs > this.admission.waitDeadline;
  }

  admit(): void {
    if (this.#settle()) this.#resolve();
  }

  /** Gives up the wait with `reason`, and leaves the queue it is in. */
  drop(reason: unknown): void {
    if (!this.#settle()) return;
    this.#onDrop(this);
    this.#reject(reason);
  }

  #settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    if (this.#onAbort) this.admission?.signal?.removeEventListener('abort', this.#onAbort);
    if (this.#deadlineTimer !== undefined) clearTimeout(this.#deadlineTimer);
    return true;
  }
}

/** A sleep that can be cut short (the queue emptied, the limiter closed). */
export class Nap {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #wake: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = setTimeout(() => this.wake(), timerDelayMs(ms));
    });
  }

  wake(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
