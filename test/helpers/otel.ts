/**
 * A real OpenTelemetry SDK for one test file: a tracer provider exporting to memory, an
 * AsyncLocalStorage context manager and a meter provider read on demand, registered globally
 * before the file's tests and unregistered after them.
 */
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** Reads the metrics when a test asks, and only then. */
class OnDemandReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }

  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Telemetry {
  spans: InMemorySpanExporter;
  /** Collects the metrics recorded so far (cumulative since the file started). */
  collect(): Promise<ResourceMetrics>;
}

export function useTelemetry(): () => Telemetry {
  const spans = new InMemorySpanExporter();
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    metrics.setGlobalMeterProvider(meterProvider);
  });
  afterAll(async () => {
    await meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    context.disable();
  });
  beforeEach(() => {
    spans.reset();
  });
  const telemetry: Telemetry = {
    spans,
    async collect() {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw new AggregateError(errors, 'collecting metrics failed');
      return resourceMetrics;
    },
  };
  return () => telemetry;
}

/** A span and its children, by start time: `[name, children]`. */
export type Tree = [string, Tree[]];

/** The finished spans as trees (roots first), children ordered by start time. */
export function spanTrees(spans: readonly ReadableSpan[]): Tree[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const byStart = [...spans].sort((a, b) => hrMs(a.startTime) - hrMs(b.startTime));
  const build = (span: ReadableSpan): Tree => [
    span.name,
    byStart.filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId).map(build),
  ];
  return byStart.filter((span) => !span.parentSpanContext || !ids.has(span.parentSpanContext.spanId)).map(build);
}

function hrMs([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}

/** The one finished span named `name`. */
export function spanNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`${found.length} spans named ${name}: ${spans.map((span) => span.name).join(', ')}`);
  return found[0] as ReadableSpan;
}
