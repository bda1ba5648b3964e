import type { Instrument } from './observer.js';
import { metricsObserver } from './metrics.js';
import { tracingObserver } from './tracing.js';

/**
 * The OpenTelemetry instruments: spans of every call, and its metrics, each recording while a
 * provider is registered. The web build has its own twin (opentelemetry.web.ts).
 */
export function openTelemetryInstruments(propagateTraceContext: boolean): Instrument[] {
  return [tracingObserver(propagateTraceContext), metricsObserver()];
}
