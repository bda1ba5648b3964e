/**
 * Everything the webhook domain runs in the background (retry series, voice quality schedules,
 * voice streams) is tracked here, so the sandbox's close() cancels timers, fetches and sockets
 * and waits for them to unwind instead of leaving work behind.
 */
export class InFlight {
  #controller = new AbortController();
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
    this.#controller = new AbortController();
  }

  async dispose(): Promise<void> {
    this.#controller.abort(new Error('sandbox closed'));
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }
}
