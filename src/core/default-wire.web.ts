/**
 * default-wire.ts as the build for Workers, edge runtimes and browsers has it: always a WHATWG
 * `fetch` (the caller's, else the platform's), and no import of undici. Chosen by the package's
 * export conditions, never at run time: a Worker with `nodejs_compat` looks like Node from its
 * globals, yet has no undici to send with.
 */
import type { ClientOptions } from './options.js';
import { nonNodeRuntime, platformFetch } from './runtime.js';
import { FetchWire, type Wire, type WireKind } from './wire.js';

export function wireKind(_options: Readonly<ClientOptions>): WireKind {
  return 'fetch';
}

/** Throws ConfigurationError for a `dispatcher`, which only the Node build can use. */
export function defaultWire(options: Readonly<ClientOptions>, maxResponseBytes: number): Wire {
  return new FetchWire(platformFetch(options, nonNodeRuntime() ?? 'this runtime'), maxResponseBytes);
}
