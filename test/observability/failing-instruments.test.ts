/**
 * Instrumentation never changes a call: a tracer provider, sampler, span processor, exporter,
 * span, context manager, meter, instrument or logger that throws or rejects, at any point of a
 * call's life, leaves every call's result as it is untraced (a success, a typed error, a retried
 * call, an asynchronous operation's wait()), makes no wait() throw synchronously, leaves no
 * unhandled rejection, and is reported once per client through the client's logger. Over real
 * loopback HTTP against the sandbox, with the real OpenTelemetry SDK behind the failing pieces.
 */
import { type Context, type ContextManager, context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Logger, PartnerClient } from '../../src/index.js';
import { forceOneBusySims, useSandbox } from '../e2e/sandbox.js';
import { installFakeClock, settleOnFakeClock } from '../helpers/clock.js';

// Transactions complete at once: the wait is observed, not its length.
const run = useSandbox({ transactionDelayMs: 0 }, {}, { auditSpans: false });

/** What the guest code throws or rejects with. */
class GuestFailure extends Error {
  override name = 'GuestFailure';
}

type Mode = 'throws' | 'rejects';

/**
 * `target` with the method at the end of `path` failing: each method before it is called through
 * and its result wrapped the same way (`['getTracer', 'startSpan', 'end']`: the spans of the
 * tracers of the provider). A rejecting method does its work first, then returns a rejected promise.
 */
function failingAt<T extends object>(target: T, path: readonly string[], mode: Mode): T {
  const [name, ...rest] = path;
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (key !== name) return method.bind(object);
      return (...args: unknown[]): unknown => {
        if (rest.length > 0) return failingAt(method.apply(object, args) as object, rest, mode);
        if (mode === 'throws') throw new GuestFailure(`${String(key)} failed`);
        method.apply(object, args);
        return Promise.reject(new GuestFailure(`${String(key)} failed`));
      };
    },
  });
}

/** A span processor of the real SDK's, failing in one of its methods. */
function failingProcessor(method: 'onStart' | 'onEnd'): SpanProcessor {
  const fail = (): void => {
    throw new GuestFailure(`${method} failed`);
  };
  return {
    onStart: method === 'onStart' ? fail : () => undefined,
    onEnd: method === 'onEnd' ? fail : () => undefined,
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

const throwingSampler: Sampler = {
  shouldSample() {
    throw new GuestFailure('shouldSample failed');
  },
  toString: () => 'throwing sampler',
};

function exporter(answer: 'throws' | 'fails'): SpanExporter {
  return {
    export(_spans, done) {
      if (answer === 'throws') throw new GuestFailure('export failed');
      done({ code: ExportResultCode.FAILED, error: new GuestFailure('export failed') });
    },
    shutdown: () => Promise.resolve(),
  };
}

function tracerProvider(options: { processor?: SpanProcessor; sampler?: Sampler; exporter?: SpanExporter } = {}): BasicTracerProvider {
  const processor = options.processor ?? new SimpleSpanProcessor(options.exporter ?? new InMemorySpanExporter());
  return new BasicTracerProvider({ spanProcessors: [processor], sampler: options.sampler });
}

class OnDemandReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }

  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function meterProvider(views: ConstructorParameters<typeof MeterProvider>[0] = {}): MeterProvider {
  return new MeterProvider({ readers: [new OnDemandReader()], ...views });
}

type Misbehaviour = 'active throws' | 'with throws before' | 'with throws after' | 'with never runs' | 'with runs twice' | 'with rejects after';

/** A context manager of the real SDK's (AsyncLocalStorage) whose `with` or `active` misbehaves. */
class MisbehavingContextManager extends AsyncLocalStorageContextManager {
  readonly #how: Misbehaviour;

  constructor(how: Misbehaviour) {
    super();
    this.#how = how;
  }

  override active(): Context {
    if (this.#how === 'active throws') throw new GuestFailure('active failed');
    return super.active();
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    scope: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    switch (this.#how) {
      case 'with throws before':
        throw new GuestFailure('with failed');
      case 'with never runs':
        return undefined as ReturnType<F>;
      case 'with throws after':
        super.with(scope, fn, thisArg, ...args);
        throw new GuestFailure('with failed');
      case 'with runs twice':
        super.with(scope, fn, thisArg, ...args);
        return super.with(scope, fn, thisArg, ...args);
      case 'with rejects after':
        super.with(scope, fn, thisArg, ...args);
        return Promise.reject(new GuestFailure('with failed')) as ReturnType<F>;
      case 'active throws':
        return super.with(scope, fn, thisArg, ...args);
    }
  }
}

interface Setup {
  tracing?: () => Parameters<typeof trace.setGlobalTracerProvider>[0];
  metering?: () => Parameters<typeof metrics.setGlobalMeterProvider>[0];
  contextManager?: () => ContextManager;
  logger?: 'throws' | 'rejects';
}

/** What a client's logger received at warn and above, the failures of instruments among them. */
interface Reports {
  readonly lines: Array<{ message: string; fields: Record<string, unknown> | undefined }>;
  instrumentFailures(): Array<{ instrument: unknown; point: unknown; error: unknown }>;
}

function recordingLogger(failing: Setup['logger']): { logger: Logger; reports: Reports } {
  const lines: Reports['lines'] = [];
  const record = (message: string, fields?: Record<string, unknown>): void => {
    lines.push({ message, fields });
    if (failing === 'throws') throw new GuestFailure('logger failed');
    if (failing === 'rejects') return Promise.reject(new GuestFailure('logger failed')) as unknown as void;
  };
  return {
    logger: { debug: () => undefined, info: () => undefined, warn: record, error: record },
    reports: {
      lines,
      instrumentFailures: () =>
        lines
          .filter((line) => line.fields !== undefined && 'instrument' in line.fields)
          .map((line) => ({ instrument: line.fields?.instrument, point: line.fields?.point, error: line.fields?.error })),
    },
  };
}

/** A result as compared: the value of a success, the class, code and status of a failure. */
type Outcome = { ok: unknown } | { failed: { name: string; code: unknown; status: unknown } };

async function outcome(promise: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await promise };
  } catch (error) {
    const failure = error as { name: string; code?: unknown; status?: unknown };
    return { failed: { name: failure.name, code: failure.code, status: failure.status } };
  }
}

const MISSING_ICCID = '8961000000000000000';

/** Four calls of each kind, on a client of their own: the results to hold equal to untraced ones. */
async function fourCalls(logger: Logger): Promise<{ results: Record<string, Outcome>; retriedRequests: number; waitThrewSynchronously: boolean }> {
  const { sandbox } = run();
  const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, logger });
  try {
    const success = await outcome(client.sims.list({ pageSize: 2 }).then((page) => page.data));
    const typedError = await outcome(client.sims.retrieveSubscription(MISSING_ICCID));
    forceOneBusySims(sandbox);
    const before = sandbox.requests().length;
    // The retry's backoff passes on a fake clock: the retry is observed, not its wait.
    installFakeClock();
    const retried = await settleOnFakeClock(outcome(client.sims.list({ pageSize: 2 }).then((page) => page.data))).finally(() => vi.useRealTimers());
    const retriedRequests = sandbox
      .requests()
      .slice(before)
      .filter((request) => request.path === '/api/v1.1/sims').length;
    const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
    let waiting: Promise<{ status: string; result?: unknown }> | undefined;
    let waitThrewSynchronously = false;
    try {
      waiting = handle.wait({ pollIntervalMs: 100 });
    } catch {
      waitThrewSynchronously = true;
    }
    const waited = await outcome((waiting ?? Promise.resolve()).then((done) => ({ status: done?.status, result: done?.result !== undefined })));
    return { results: { success, typedError, retried, waited }, retriedRequests, waitThrewSynchronously };
  } finally {
    await client.close();
  }
}

/** Lets the event loop report any rejection left unhandled by the calls. */
async function settled(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

let untraced: Awaited<ReturnType<typeof fourCalls>>;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeAll(async () => {
  untraced = await fourCalls(recordingLogger(undefined).logger);
  expect(untraced.results.success).toHaveProperty('ok');
  expect(untraced.results.typedError).toMatchObject({ failed: { name: 'NotFoundError', status: 404 } });
  expect(untraced.retriedRequests).toBe(2);
  expect(untraced.results.waited).toEqual({ ok: { status: 'COMPLETED', result: true } });
});

beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});

afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  trace.disable();
  metrics.disable();
  context.disable();
});

/** Runs the four calls with `setup` registered and holds them to the untraced ones. */
async function expectUnchanged(setup: Setup, expectedReports: { instrument: string } | 'none'): Promise<Reports> {
  if (setup.contextManager) context.setGlobalContextManager(setup.contextManager());
  else context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  if (setup.tracing) trace.setGlobalTracerProvider(setup.tracing());
  if (setup.metering) metrics.setGlobalMeterProvider(setup.metering());
  const { logger, reports } = recordingLogger(setup.logger);
  const observed = await fourCalls(logger);
  await settled();
  expect(observed).toEqual(untraced);
  expect(unhandled).toEqual([]);
  const failures = reports.instrumentFailures();
  if (expectedReports === 'none') expect(failures).toEqual([]);
  else {
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject(expectedReports);
  }
  return reports;
}

const tracer = (path: readonly string[], mode: Mode) => (): BasicTracerProvider => failingAt(tracerProvider(), path, mode);
const meter = (path: readonly string[], mode: Mode) => (): MeterProvider => failingAt(meterProvider(), path, mode);

describe('a tracer that fails leaves every call as it is untraced, reported once', () => {
  it.each([
    ['a span processor whose onStart throws', () => tracerProvider({ processor: failingProcessor('onStart') })],
    ['a span processor whose onEnd throws', () => tracerProvider({ processor: failingProcessor('onEnd') })],
    ['a sampler that throws', () => tracerProvider({ sampler: throwingSampler })],
    ['a tracer provider whose getTracer throws', tracer(['getTracer'], 'throws')],
    ['a tracer whose startSpan throws', tracer(['getTracer', 'startSpan'], 'throws')],
    ['spans whose spanContext throws', tracer(['getTracer', 'startSpan', 'spanContext'], 'throws')],
    ['spans whose isRecording throws', tracer(['getTracer', 'startSpan', 'isRecording'], 'throws')],
    ['spans whose setAttribute throws', tracer(['getTracer', 'startSpan', 'setAttribute'], 'throws')],
    ['spans whose setAttribute rejects', tracer(['getTracer', 'startSpan', 'setAttribute'], 'rejects')],
    ['spans whose setAttributes throws', tracer(['getTracer', 'startSpan', 'setAttributes'], 'throws')],
    ['spans whose setAttributes rejects', tracer(['getTracer', 'startSpan', 'setAttributes'], 'rejects')],
    ['spans whose setStatus throws', tracer(['getTracer', 'startSpan', 'setStatus'], 'throws')],
    ['spans whose setStatus rejects', tracer(['getTracer', 'startSpan', 'setStatus'], 'rejects')],
    ['spans whose end throws', tracer(['getTracer', 'startSpan', 'end'], 'throws')],
    ['spans whose end rejects', tracer(['getTracer', 'startSpan', 'end'], 'rejects')],
  ])('%s', async (_name, tracing) => {
    await expectUnchanged({ tracing }, { instrument: 'tracing' });
  });

  it.each([['throws'], ['fails']] as const)(
    'an exporter that %s: the SDK catches it and reports it to its own diag logger, the client never sees it',
    async (answer) => {
      await expectUnchanged({ tracing: () => tracerProvider({ exporter: exporter(answer) }) }, 'none');
    },
  );

  it.each([['active throws'], ['with throws before'], ['with throws after'], ['with never runs']] as const)(
    'a context manager whose %s',
    async (how) => {
      await expectUnchanged(
        { tracing: () => tracerProvider(), contextManager: () => new MisbehavingContextManager(how).enable() },
        { instrument: 'tracing' },
      );
    },
  );

  it('a context manager whose with rejects after running the call', async () => {
    // The SDK's SimpleSpanProcessor runs each export in context.with too and drops what it
    // returns: a processor that does not export leaves the client the only caller of `with`.
    const processor: SpanProcessor = {
      onStart: () => undefined,
      onEnd: () => undefined,
      forceFlush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
    await expectUnchanged(
      { tracing: () => tracerProvider({ processor }), contextManager: () => new MisbehavingContextManager('with rejects after').enable() },
      { instrument: 'tracing' },
    );
  });

  it('a context manager that runs the call twice: the call is made once', async () => {
    await expectUnchanged(
      { tracing: () => tracerProvider(), contextManager: () => new MisbehavingContextManager('with runs twice').enable() },
      'none',
    );
  });

  it('spans that fail still leave the trace context of propagateTraceContext well-formed or absent', async () => {
    const { sandbox } = run();
    trace.setGlobalTracerProvider(failingAt(tracerProvider(), ['getTracer', 'startSpan', 'spanContext'], 'throws'));
    const client = new PartnerClient({
      baseUrl: sandbox.url,
      key: sandbox.key,
      secret: sandbox.secret,
      rateLimit: false,
      propagateTraceContext: true,
    });
    try {
      await expect(client.sims.list({ pageSize: 1 })).resolves.toBeDefined();
    } finally {
      await client.close();
    }
    expect(sandbox.requests().map((request) => request.headers['traceparent'])).toEqual(sandbox.requests().map(() => undefined));
  });
  it('sends no tracestate a tracer serialises as no header value can be: the request goes out as it would untraced', async () => {
    const { sandbox } = run();
    const provider = tracerProvider();
    const real = provider.getTracer.bind(provider);
    // A tracer whose spans carry a trace state that serialises to a header-splitting string.
    provider.getTracer = (...args) => {
      const tracerOf = real(...args);
      const startSpan = tracerOf.startSpan.bind(tracerOf);
      tracerOf.startSpan = (...spanArgs) => {
        const span = startSpan(...spanArgs);
        const spanContext = span.spanContext.bind(span);
        span.spanContext = () => ({ ...spanContext(), traceState: { serialize: () => 'vendor=1\r\nx-injected: yes' } as never });
        return span;
      };
      return tracerOf;
    };
    trace.setGlobalTracerProvider(provider);
    const client = new PartnerClient({
      baseUrl: sandbox.url,
      key: sandbox.key,
      secret: sandbox.secret,
      rateLimit: false,
      propagateTraceContext: true,
    });
    try {
      await expect(client.sims.list({ pageSize: 1 })).resolves.toBeDefined();
    } finally {
      await client.close();
    }
    const headers = sandbox.requests().map((request) => request.headers);
    expect(headers.map((sent) => [typeof sent['traceparent'], sent['tracestate'], sent['x-injected']])).toEqual(
      headers.map(() => ['string', undefined, undefined]),
    );
  });
});

describe('a meter that fails leaves every call as it is unmeasured, reported once', () => {
  it.each([
    ['a meter provider whose getMeter throws', meter(['getMeter'], 'throws')],
    ['a meter whose createHistogram throws', meter(['getMeter', 'createHistogram'], 'throws')],
    ['a meter whose createCounter throws', meter(['getMeter', 'createCounter'], 'throws')],
    ['a meter whose createUpDownCounter throws', meter(['getMeter', 'createUpDownCounter'], 'throws')],
    ['histograms whose record throws', meter(['getMeter', 'createHistogram', 'record'], 'throws')],
    ['histograms whose record rejects', meter(['getMeter', 'createHistogram', 'record'], 'rejects')],
    ['counters whose add throws', meter(['getMeter', 'createCounter', 'add'], 'throws')],
    ['counters whose add rejects', meter(['getMeter', 'createCounter', 'add'], 'rejects')],
    ['up-down counters whose add throws', meter(['getMeter', 'createUpDownCounter', 'add'], 'throws')],
    ['up-down counters whose add rejects', meter(['getMeter', 'createUpDownCounter', 'add'], 'rejects')],
    [
      "a view's attributes processor that throws",
      () =>
        meterProvider({
          views: [
            {
              instrumentName: '*',
              attributesProcessors: [
                {
                  process() {
                    throw new GuestFailure('process failed');
                  },
                },
              ],
            },
          ],
        }),
    ],
  ])('%s', async (_name, metering) => {
    await expectUnchanged({ metering }, { instrument: 'metrics' });
  });
});

describe('the failure report', () => {
  it('names the instrument and the point, holds the guest error as a field, and is made once per client', async () => {
    const reports = await expectUnchanged({ tracing: () => tracerProvider({ processor: failingProcessor('onStart') }) }, { instrument: 'tracing' });
    const [failure] = reports.instrumentFailures();
    expect(failure).toEqual({ instrument: 'tracing', point: 'start', error: expect.any(GuestFailure) as unknown });
    const line = reports.lines.find((entry) => entry.fields?.instrument === 'tracing');
    expect(line?.message).toMatch(/^tracing failed \(at start\)/);
    expect(line?.message).not.toContain('onStart failed');
  });

  it('is made once for each instrument that fails: a failing tracer does not stop the metrics', async () => {
    const metered = meterProvider();
    const { logger, reports } = recordingLogger(undefined);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(tracerProvider({ processor: failingProcessor('onStart') }));
    metrics.setGlobalMeterProvider(failingAt(metered, ['getMeter', 'createCounter', 'add'], 'throws'));
    const { sandbox } = run();
    const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, logger });
    try {
      await client.sims.list({ pageSize: 1 });
      forceOneBusySims(sandbox);
      await client.sims.list({ pageSize: 1 });
    } finally {
      await client.close();
    }
    expect(reports.instrumentFailures().map((failure) => failure.instrument)).toEqual(['tracing', 'metrics']);
  });

  it.each([['throws'], ['rejects']] as const)('leaves the call as it is when the logger it goes to %s', async (failing) => {
    const reports = await expectUnchanged(
      { tracing: () => tracerProvider({ processor: failingProcessor('onStart') }), logger: failing },
      { instrument: 'tracing' },
    );
    expect(reports.lines.length).toBeGreaterThan(0);
  });
});

/** Spans recorded through a healthy provider are untouched by the guard. */
describe('a healthy tracer', () => {
  it('still records every span, and nothing is reported', async () => {
    const spans = new InMemorySpanExporter();
    await expectUnchanged({ tracing: () => tracerProvider({ exporter: spans }) }, 'none');
    const names = spans.getFinishedSpans().map((span: ReadableSpan) => span.name);
    expect(names).toContain('GET /api/v1.1/sims');
    expect(names).toContain('wait POST /api/v1.1/esim');
  });
});
