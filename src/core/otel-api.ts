/**
 * `@opentelemetry/api`, an optional peer dependency, found without importing it. The API keeps
 * its registered providers on one global object (shared by every copy and version 1.x of it);
 * until some code registers a tracer or meter provider that object does not exist, and a call
 * costs one property read. Only once it exists is the API loaded, synchronously, through the
 * runtime's `createRequire` (looked up with `process.getBuiltinModule`, never imported), from
 * this package's own location so the peer dependency resolves as the application installed it.
 * Nothing is loaded when the SDK is imported; where the API cannot be loaded, nothing is traced.
 */
import type * as OpenTelemetry from '@opentelemetry/api';
import { nodeBuiltin } from './runtime.js';

export type OpenTelemetryApi = typeof OpenTelemetry;

/** The global the API registers its providers on (`@opentelemetry/api`'s `src/internal/global-utils`). */
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

/** What the SDK reads of that global: which providers were registered. */
interface RegisteredProviders {
  readonly trace?: unknown;
  readonly metrics?: unknown;
}

function registered(): RegisteredProviders | undefined {
  return (globalThis as { [GLOBAL_KEY]?: RegisteredProviders })[GLOBAL_KEY];
}

/** A tracer provider was registered: spans may be recorded. */
export function tracingRegistered(): boolean {
  return registered()?.trace !== undefined;
}

/** A meter provider was registered: measurements may be recorded. */
export function metricsRegistered(): boolean {
  return registered()?.metrics !== undefined;
}

type Require = (id: string) => unknown;

function load(): OpenTelemetryApi | undefined {
  const nodeModule = nodeBuiltin('node:module') as { createRequire?: (from: string) => Require } | undefined;
  if (typeof nodeModule?.createRequire !== 'function') return undefined;
  try {
    // The CommonJS build reads import.meta.url from __filename (tsup's shim).
    const api = nodeModule.createRequire(import.meta.url)('@opentelemetry/api') as Partial<OpenTelemetryApi> | undefined;
    return api?.trace && api.metrics && api.context ? (api as OpenTelemetryApi) : undefined;
  } catch {
    // Not installed where this package can resolve it (or a bundle without node_modules): no telemetry.
    return undefined;
  }
}

/** undefined: not tried yet; null: tried, not loadable (never tried again). */
let api: OpenTelemetryApi | null | undefined;

/** The API, loaded on first use once a provider is registered; undefined where it cannot be loaded. */
export function openTelemetryApi(): OpenTelemetryApi | undefined {
  if (api === undefined) api = load() ?? null;
  return api ?? undefined;
}
