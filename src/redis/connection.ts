import { createHash } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import { MAX_TIMER_MS } from '../shared/timer.js';

/**
 * The few commands the fleet classes send, as ioredis's `Redis` and `Cluster` have them. Typed
 * here rather than imported so that ioredis stays an optional peer: every client with these four
 * methods works.
 */
export interface RedisConnection {
  /** `EVALSHA`: runs a script Redis already holds (the limiter's admission and settle scripts). */
  evalsha(sha1: string, numkeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** `EVAL`: loads and runs a script, when `EVALSHA` answers `NOSCRIPT`. */
  eval(script: string, numkeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** `SET key value PX ms NX`: the dedupe store's claim. */
  set(key: string, value: string, millisecondsToken: 'PX', milliseconds: number, nx: 'NX'): Promise<'OK' | null>;
  /** `DEL`: the dedupe store's release. */
  del(...keys: string[]): Promise<number>;
  /** ioredis's connection status: `'end'` once its owner closed it (`quit()`, `disconnect()`). */
  readonly status?: string;
}

/** Refuses a `redis` option that is not a client with the commands above, naming what is missing. */
export function checkConnection(redis: unknown, owner: string): RedisConnection {
  const methods = ['evalsha', 'eval', 'set', 'del'] as const;
  const record = typeof redis === 'object' && redis !== null ? (redis as Record<string, unknown>) : undefined;
  const missing = record ? methods.filter((name) => typeof record[name] !== 'function') : [...methods];
  if (missing.length > 0) {
    throw new ConfigurationError(
      `invalid ${owner} option redis: must be an ioredis client (missing ${missing.join(', ')})`,
      'CONFIGURATION_ERROR',
      'redis',
    );
  }
  return redis as RedisConnection;
}

/** A namespace goes into every key: printable ASCII without spaces or braces (braces are Cluster hash tags). */
export function checkNamespace(namespace: unknown, owner: string): string | undefined {
  if (namespace === undefined) return undefined;
  if (typeof namespace !== 'string' || !/^[\x21-\x7a|~]{1,64}$/.test(namespace)) {
    throw new ConfigurationError(
      `invalid ${owner} option namespace: must be 1 to 64 printable ASCII characters without spaces, '{' or '}'`,
      'CONFIGURATION_ERROR',
      'namespace',
    );
  }
  return namespace;
}

/** A `commandTimeoutMs` option: whole milliseconds, at least 1, within the timer range; `fallback` when unset. */
export function checkCommandTimeout(timeoutMs: unknown, owner: string, fallback: number): number {
  if (timeoutMs === undefined) return fallback;
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
    throw new ConfigurationError(
      `invalid ${owner} option commandTimeoutMs: must be a whole number of milliseconds, from 1 to ${MAX_TIMER_MS}`,
      'CONFIGURATION_ERROR',
      'commandTimeoutMs',
    );
  }
  return timeoutMs;
}

/** The store did not answer within `timeoutMs`. */
class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
}

/**
 * The store answered something its script cannot have meant (a reply of another shape, a proxy
 * in the way, a script of another version): a store failure like any other, for the caller's
 * policy on those.
 */
export class StoreReplyError extends Error {
  override readonly name = 'StoreReplyError';
}

/**
 * `command` with a deadline of our own, whatever the client's `commandTimeout`: a Redis that went
 * away (an offline queue, a reconnect loop) rejects here instead of holding a call.
 */
export function withTimeout<T>(command: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  // The command may still settle after the timeout; its late rejection is not unhandled.
  command.catch(() => undefined);
  return Promise.race([command, expired]).finally(() => clearTimeout(timer));
}

/** A Lua script run by EVALSHA, loaded with EVAL the first time a server does not know it (NOSCRIPT). */
export class Script {
  readonly #source: string;
  readonly #sha1: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisConnection, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha1, keys.length, ...keys, ...args);
    } catch (error) {
      // A restarted or flushed server has lost its script cache.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.#source, keys.length, ...keys, ...args);
    }
  }
}
