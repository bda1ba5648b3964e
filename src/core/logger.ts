import type { LogLevel, Logger } from './types.js';
import { settle } from './thenable.js';

/** A failure of the caller's logger: nowhere left to report it. */
function ignore(): void {}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

/**
 * The caller's logger behind a level filter. Without a logger the SDK stays silent; callers
 * check `enabled()` first so that building the fields of a debug line costs nothing when off.
 */
export class LevelLogger {
  readonly #logger: Logger | undefined;
  readonly #threshold: number;

  constructor(logger: Logger | undefined, level: LogLevel = 'warn') {
    this.#logger = logger;
    this.#threshold = logger ? rank[level] : rank.off;
  }

  enabled(level: Exclude<LogLevel, 'off'>): boolean {
    return rank[level] >= this.#threshold;
  }

  /** The same filter as a {@link Logger}, for a part that takes one (a limiter given as an option). */
  asLogger(): Logger {
    return {
      debug: (message, fields) => this.log('debug', message, fields),
      info: (message, fields) => this.log('info', message, fields),
      warn: (message, fields) => this.log('warn', message, fields),
      error: (message, fields) => this.log('error', message, fields),
    };
  }

  log(level: Exclude<LogLevel, 'off'>, message: string, fields?: Record<string, unknown>): void {
    if (!this.#logger || rank[level] < this.#threshold) return;
    try {
      // A failing logger must never fail the call it describes: neither by throwing, nor by
      // returning a promise that rejects (an async logger), which would be an unhandled rejection.
      settle(this.#logger[level](message, fields), ignore);
    } catch {
      // As above.
    }
  }
}
