/**
 * What a trace of your integration looks like: OpenTelemetry registered with an in-memory
 * exporter, one workflow (look up a plan, provision an eSIM, wait for it) under a span of your
 * own, then the spans printed as a tree with their attributes. The sandbox it starts answers
 * the first plan lookup with a 503, so one call shows its retry.
 *
 *   npx tsx examples/tracing.ts
 *
 * In your project, import from 'mobile-partner-sdk' instead of '../src/index.js', and register
 * your tracer provider the way your OpenTelemetry setup does (NodeSDK, or a provider of your own).
 */
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PartnerClient } from '../src/index.js';
import { startSandbox } from '../src/sandbox/index.js';

const exporter = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

const sandbox = await startSandbox({ port: 0, transactionDelayMs: 300 });
const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
const planId = sandbox.fixtures.pricedPlanId;
sandbox.force({ method: 'GET', path: `/api/v1.1/plans/${encodeURIComponent(planId)}`, status: 503, code: 'SERVICE_UNAVAILABLE', message: 'busy' });

try {
  await trace.getTracer('examples').startActiveSpan('activate a line', async (span) => {
    try {
      await client.plans.retrieve(planId);
      const handle = await client.esim.provision({ planId });
      await handle.wait({ pollIntervalMs: 200 });
    } finally {
      span.end();
    }
  });
} finally {
  await client.close();
  await sandbox.close();
}

function ms(span: ReadableSpan): number {
  const [seconds, nanos] = span.duration;
  return Math.round(seconds * 1000 + nanos / 1e6);
}

function start(span: ReadableSpan): number {
  return span.startTime[0] * 1e9 + span.startTime[1];
}

const spans = exporter.getFinishedSpans().sort((a, b) => start(a) - start(b));
const kinds = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

function print(span: ReadableSpan, prefix: string, last: boolean, root: boolean): void {
  const branch = root ? '' : last ? '└─ ' : '├─ ';
  const status = span.status.code === SpanStatusCode.ERROR ? ' ERROR' : '';
  console.log(`${prefix}${branch}${span.name}  [${kinds[span.kind]}${status}, ${ms(span)} ms]`);
  const inner = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
  const children = spans.filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId);
  const attributes = Object.entries(span.attributes).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  if (attributes.length > 0) console.log(`${inner}${children.length > 0 ? '│  ' : '   '}${attributes.join(' ')}`);
  children.forEach((child, index) => print(child, inner, index === children.length - 1, false));
}

for (const root of spans.filter((span) => span.parentSpanContext === undefined)) print(root, '', true, true);
