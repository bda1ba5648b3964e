/**
 * The wire a client sends with: the caller's `fetch` when given; else undici under Node (the
 * fastest path there) and the platform's `fetch` under Bun and Deno. The build of the package
 * for Workers, edge runtimes and browsers replaces this module with default-wire.web.ts, so that
 * undici is not in that build at all.
 */
import type { ClientOptions } from './options.js';
import { nonNodeRuntime, platformFetch } from './runtime.js';
import { UndiciWire } from './undici-wire.js';
import { FetchWire, type Wire, type WireKind } from './wire.js';

/** Which wire `defaultWire` picks for these options, without creating it (for `describe()`). */
export function wireKind(options: Readonly<ClientOptions>): WireKind {
  return options.fetch || nonNodeRuntime() ? 'fetch' : 'undici';
}

/** Throws ConfigurationError for a `dispatcher` outside Node. */
export function defaultWire(options: Readonly<ClientOptions>, maxResponseBytes: number): Wire {
  const runtime = nonNodeRuntime();
  if (options.fetch === undefined && runtime === undefined) return new UndiciWire(options.dispatcher, maxResponseBytes);
  return new FetchWire(platformFetch(options, runtime ?? 'Node'), maxResponseBytes);
}
