/**
 * Everything the webhook domain runs in the background (retry series, voice quality schedules,
 * voice streams) is tracked here, so the sandbox's close() cancels timers, fetches and sockets
 * and waits for them to unwind instead of leaving work behind.
 */
import { setMaxListeners } from 'node:events';

/**
 * The signal every background task listens to: any number at once (a retry series each, while
 * a receiver is down), so Node's leak warning past ten listeners would be noise.
 */
function closeController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

export class InFlight {
  #controller = closeController();
  readonly #tasks = new Set<Promise<unknown>>();

  /** Aborts when the sandbox closes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Runs `task` in the background; its failure after close is expected and swallowed. */
  track<T>(task: Promise<T>): Promise<T> {
    const settled = task.then(
      () => undefined,
      () => undefined,
    );
    this.#tasks.add(settled);
    void settled.then(() => this.#tasks.delete(settled));
    return task;
  }

  /** Cancels what runs now (POST /_sandbox/reset) and keeps accepting new work. */
  restart(): void {
    this.#controller.abort(new Error('sandbox reset'));
    this.#controller = closeController();
  }

  async dispose(): Promise<void> {
    this.#controller.abort(new Error('sandbox closed'));
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }
}
