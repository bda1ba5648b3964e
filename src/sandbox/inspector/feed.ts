/**
 * The live feed behind GET /_sandbox/events (server-sent events). Changes are marked dirty by id
 * and serialised once per flush for every watcher, so a burst of updates to one delivery costs
 * one view, and nothing is built or serialised while nobody watches.
 */

import { maskJsonStrings } from '../mask-url.js';

export type FeedTopic = 'requests' | 'deliveries' | 'transactions';

/** How often dirty items are sent, in real milliseconds. */
const FEED_FLUSH_MS = 100;
/** Dirty items held between two flushes; past it the batch says `resync` and the page reloads its snapshot. */
const FEED_MAX_DIRTY = 1000;
/**
 * Bytes left unread by one watcher that stops reading; past it the watcher is dropped (EventSource
 * reconnects). A watcher holds at most this plus one batch.
 */
export const FEED_MAX_QUEUED_BYTES = 1024 * 1024;
/** Where the feed is read; the site guard keeps its slots for the inspector page's EventSource. */
export const FEED_PATH = '/_sandbox/events';
/** Pages watching at once; one more is refused, so watchers cannot grow without bound. */
export const FEED_MAX_WATCHERS = 16;
/** A comment line keeps idle connections open through proxies and tells a dead client apart. */
const FEED_HEARTBEAT_MS = 15_000;

interface FeedBatch {
  requests: unknown[];
  deliveries: unknown[];
  transactions: unknown[];
  /** Items were dropped (too many changes in one flush): reload the snapshot. */
  resync: boolean;
  [extra: string]: unknown;
}

interface Watcher {
  controller: ReadableStreamDefaultController<Uint8Array>;
}

export class InspectorFeed {
  readonly #watchers = new Set<Watcher>();
  #dirty = new Map<string, { topic: FeedTopic; build: () => unknown }>();
  #resync = false;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  readonly #encoder = new TextEncoder();
  /** Extra members of every batch (counters, clock, forced rules), built at flush time. */
  #extras: () => Record<string, unknown> = () => ({});

  get watched(): boolean {
    return this.#watchers.size > 0;
  }

  get watchers(): number {
    return this.#watchers.size;
  }

  setExtras(build: () => Record<string, unknown>): void {
    this.#extras = build;
  }

  /** Marks an item changed; `build` runs at the next flush, only if someone watches. */
  touch(topic: FeedTopic, id: string | number, build: () => unknown): void {
    if (this.#watchers.size === 0) return;
    const key = `${topic}:${id}`;
    if (!this.#dirty.has(key) && this.#dirty.size >= FEED_MAX_DIRTY) this.#resync = true;
    else this.#dirty.set(key, { topic, build });
    this.#schedule();
  }

  /** Tells every watcher to reload its snapshot (after a reset). */
  resync(): void {
    if (this.#watchers.size === 0) return;
    this.#dirty.clear();
    this.#resync = true;
    this.#schedule();
  }

  /**
   * A new SSE body, or null when FEED_MAX_WATCHERS already watch. The watcher leaves when the
   * client disconnects (cancel) or the feed closes.
   */
  open(): ReadableStream<Uint8Array> | null {
    if (this.#watchers.size >= FEED_MAX_WATCHERS) return null;
    let watcher: Watcher | undefined;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          watcher = { controller };
          this.#watchers.add(watcher);
          // retry: how long EventSource waits before reconnecting after a drop.
          controller.enqueue(this.#encoder.encode('retry: 1000\n\n'));
          this.#heartbeat ??= setInterval(() => this.#broadcast(': ping\n\n'), FEED_HEARTBEAT_MS);
          this.#heartbeat.unref?.();
        },
        cancel: () => {
          if (watcher) this.#leave(watcher);
        },
      },
      // desiredSize counts queued bytes: a reader that stops reading is measured in memory held.
      new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
    );
  }

  /** Ends every stream (sandbox close). */
  close(): void {
    for (const watcher of [...this.#watchers]) {
      this.#leave(watcher);
      try {
        watcher.controller.close();
      } catch {
        // already closed by the client
      }
    }
  }

  #leave(watcher: Watcher): void {
    this.#watchers.delete(watcher);
    if (this.#watchers.size > 0) return;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#dirty.clear();
    this.#resync = false;
  }

  #schedule(): void {
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.flush();
    }, FEED_FLUSH_MS);
    this.#flushTimer.unref?.();
  }

  /** Sends what changed since the last flush as one `batch` event. */
  flush(): void {
    if (this.#watchers.size === 0 || (this.#dirty.size === 0 && !this.#resync)) return;
    const batch: FeedBatch = { requests: [], deliveries: [], transactions: [], resync: this.#resync, ...this.#extras() };
    for (const { topic, build } of this.#dirty.values()) batch[topic].push(build());
    this.#dirty = new Map();
    this.#resync = false;
    // The page shows URLs (deliveries, forced rules) with their user-info masked, like the control API.
    this.#broadcast(`event: batch\ndata: ${JSON.stringify(batch, maskJsonStrings)}\n\n`);
  }

  #broadcast(text: string): void {
    const chunk = this.#encoder.encode(text);
    for (const watcher of [...this.#watchers]) {
      const { controller } = watcher;
      // What the client left unread (the server pulls no faster than the socket drains). A client
      // that has read everything takes one batch of any size, so a burst never drops a healthy page.
      const unread = controller.desiredSize === null ? 0 : -controller.desiredSize;
      if (unread > 0 && unread + chunk.byteLength > FEED_MAX_QUEUED_BYTES) {
        this.#leave(watcher);
        controller.error(new Error('inspector watcher too slow'));
        continue;
      }
      try {
        controller.enqueue(chunk);
      } catch {
        this.#leave(watcher);
      }
    }
  }
}
