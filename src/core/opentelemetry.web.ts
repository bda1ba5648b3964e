import type { Instrument } from './observer.js';

/**
 * The OpenTelemetry instruments as the web build has them: none. They load the API through
 * `process.getBuiltinModule('node:module')` and `createRequire` (otel-api.ts), which a Worker, an
 * edge runtime or a browser cannot resolve a package with, so there they would never record a span
 * or a measurement (docs/observability.md); leaving them out keeps their code out of a Worker's
 * bundle. The diagnostics channels stay, for a runtime that has `process.getBuiltinModule`.
 */
export function openTelemetryInstruments(_propagateTraceContext: boolean): Instrument[] {
  return [];
}
