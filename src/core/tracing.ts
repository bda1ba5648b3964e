/**
 * OpenTelemetry spans of the client, behind the pipeline's one seam. Enabled while a tracer
 * provider is registered with `@opentelemetry/api` (see otel-api.ts); without one, nothing is
 * loaded and nothing built.
 *
 * One CLIENT span per SDK call, named after its route (`GET /api/v1.1/sims/{iccid}`), with the
 * HTTP client conventions' attributes and the SDK's own (`partner.*`). A call that retried,
 * re-authenticated or waited shows each attempt and each wait as a child span (`attempt 2`,
 * `wait retry`), so a trace view draws the backoff and the rate-limit queue as bars on the
 * call's timeline; a call answered at its first attempt is one span. The token exchange is a
 * span of its own, the child of the call that needed it; `wait()` of an asynchronous operation
 * is a span covering its polls. Errors are recorded by class and status, never by message: a server's
 * message may echo an ICCID or an email.
 */
import { ResponseValidationError } from './errors.js';
import {
  type CallEnd,
  type CallObservation,
  type CallStart,
  type Instrument,
  type ReportFailure,
  type TransactionWaitObservation,
  type TransactionWaitStart,
  type WaitReason,
} from './observer.js';
import { settle } from './thenable.js';
import { type OpenTelemetryApi, openTelemetryApi, tracingRegistered } from './otel-api.js';
import type { Attributes, Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { monotonicNow } from './sleep.js';
import {
  ATTR,
  type ServerAttributes,
  attemptErrorType,
  errorCode,
  errorType,
  serverAttributes,
  transactionStatus,
  urlTemplate,
} from './telemetry-attributes.js';
import { VERSION } from './version.js';

const TRACER_NAME = 'mobile-partner-sdk';

/**
 * W3C `tracestate` as the Trace Context spec allows it: at most 32 comma-separated list members,
 * 512 characters, printable ASCII. It comes from the tracer: anything else is not sent, so that a
 * tracer can never make a request invalid.
 */
const TRACE_STATE = /^[\x20-\x7e]{1,512}$/;

/** W3C trace context of `span`, written into the request's headers: only `traceparent` and `tracestate`, never baggage. */
function writeTraceContext(api: OpenTelemetryApi, context: SpanContext, headers: Record<string, string>): void {
  // isSpanContextValid checks the ids' forms (32 and 16 lower-case hex digits, not all zero).
  if (!api.isSpanContextValid(context)) return;
  const flags = typeof context.traceFlags === 'number' ? context.traceFlags & 0xff : 0;
  headers['traceparent'] = `00-${context.traceId}-${context.spanId}-${flags.toString(16).padStart(2, '0')}`;
  const state: unknown = context.traceState?.serialize();
  if (typeof state === 'string' && TRACE_STATE.test(state)) headers['tracestate'] = state;
  else delete headers['tracestate'];
}

function markFailed(api: OpenTelemetryApi, span: Span, type: string, failed: ReportFailure): void {
  settle(span.setAttribute(ATTR.errorType, type), failed);
  settle(span.setStatus({ code: api.SpanStatusCode.ERROR }), failed);
}

function endAttempt(
  api: OpenTelemetryApi,
  span: Span,
  status: number | undefined,
  failure: string | undefined,
  endTime: number | undefined,
  failed: ReportFailure,
): void {
  if (status !== undefined) settle(span.setAttribute(ATTR.status, status), failed);
  if (failure !== undefined) markFailed(api, span, failure, failed);
  settle(span.end(endTime), failed);
}

/** An attempt seen so far only as times: made a span only if the call turns out to need child spans. */
interface PendingAttempt {
  readonly startedAt: number;
  endedAt: number | undefined;
  status: number | undefined;
  failure: string | undefined;
}

class CallSpan implements CallObservation {
  readonly #api: OpenTelemetryApi;
  readonly #tracer: Tracer;
  readonly #span: Span;
  /** The context with this span current: the parent of attempts, waits and the token exchange. */
  readonly #context: Context;
  readonly #propagate: boolean;
  readonly #recording: boolean;
  readonly #keyed: boolean;
  readonly #failed: ReportFailure;
  /**
   * Whether attempts and waits are child spans. Not until the call retries, re-authenticates or
   * waits: a call answered at its first attempt stays one span, which is most calls and half
   * the cost of tracing them. The first attempt is then drawn from the times kept in #first.
   */
  #expanded = false;
  #first: PendingAttempt | undefined;
  #attempt: Span | undefined;
  #wait: Span | undefined;
  #waitStartedAt = 0;
  #rateLimitWaitMs: number | undefined;
  #retryReasons: string[] | undefined;
  /** How the last attempt failed, the reason of the retry that may follow. */
  #lastFailure: string | undefined;

  constructor(api: OpenTelemetryApi, tracer: Tracer, span: Span, propagate: boolean, keyed: boolean, failed: ReportFailure) {
    this.#api = api;
    this.#tracer = tracer;
    this.#span = span;
    this.#context = api.trace.setSpan(api.context.active(), span);
    this.#propagate = propagate;
    this.#recording = span.isRecording();
    this.#keyed = keyed;
    this.#failed = failed;
  }

  within<R>(work: () => R): R {
    return this.#api.context.with(this.#context, work);
  }

  /** `startTime`/`endTime` are performance.now() readings, which the JavaScript SDK takes as such. */
  #child(name: string, attributes: Attributes, startTime?: number): Span {
    return this.#tracer.startSpan(name, { kind: this.#api.SpanKind.INTERNAL, attributes, startTime }, this.#context);
  }

  /** From now on attempts and waits are child spans; the first attempt, if made, becomes one from its times. */
  #expand(): void {
    if (this.#expanded) return;
    this.#expanded = true;
    const first = this.#first;
    if (first === undefined) return;
    this.#first = undefined;
    const span = this.#child('attempt 1', {}, first.startedAt);
    if (first.endedAt === undefined) {
      this.#attempt = span;
      return;
    }
    endAttempt(this.#api, span, first.status, first.failure, first.endedAt, this.#failed);
  }

  attempt(attempt: number, headers: Record<string, string>): void {
    if (this.#propagate) writeTraceContext(this.#api, this.#span.spanContext(), headers);
    if (!this.#recording) return;
    if (attempt === 1 && !this.#expanded) {
      this.#first = { startedAt: monotonicNow(), endedAt: undefined, status: undefined, failure: undefined };
      return;
    }
    this.#expand();
    // http.request.resend_count is set on resends only, as the conventions ask.
    this.#attempt = this.#child(`attempt ${attempt}`, attempt > 1 ? { [ATTR.resendCount]: attempt - 1 } : {});
  }

  attemptEnd(_attempt: number, outcome: { status: number | undefined; error: unknown }): void {
    const failure = attemptErrorType(outcome.status, outcome.error);
    this.#lastFailure = failure;
    const span = this.#attempt;
    if (span !== undefined) {
      this.#attempt = undefined;
      endAttempt(this.#api, span, outcome.status, failure, undefined, this.#failed);
    } else if (this.#first !== undefined) {
      this.#first.endedAt = monotonicNow();
      this.#first.status = outcome.status;
      this.#first.failure = failure;
    }
  }

  wait(reason: WaitReason, ms: number | undefined): void {
    if (reason === 'retry') (this.#retryReasons ??= []).push(this.#lastFailure ?? '_OTHER');
    this.#waitStartedAt = monotonicNow();
    if (!this.#recording) return;
    this.#expand();
    const attributes: Attributes = { [ATTR.waitReason]: reason };
    if (ms !== undefined) attributes[ATTR.waitPlannedMs] = Math.round(ms);
    this.#wait = this.#child(`wait ${reason}`, attributes);
  }

  waitEnd(reason: WaitReason): void {
    if (reason === 'rate-limit') this.#rateLimitWaitMs = (this.#rateLimitWaitMs ?? 0) + (monotonicNow() - this.#waitStartedAt);
    const wait = this.#wait;
    this.#wait = undefined;
    if (wait !== undefined) settle(wait.end(), this.#failed);
  }

  end(outcome: CallEnd): void {
    const span = this.#span;
    // A call cut while waiting or sending closes what it had open.
    if (this.#attempt !== undefined) settle(this.#attempt.end(), this.#failed);
    if (this.#wait !== undefined) settle(this.#wait.end(), this.#failed);
    if (this.#recording) {
      const attributes: Attributes = { [ATTR.attempts]: outcome.attempts, [ATTR.callEnd]: outcome.reason };
      if (outcome.status !== undefined) attributes[ATTR.status] = outcome.status;
      if (this.#retryReasons) attributes[ATTR.retryReasons] = this.#retryReasons;
      if (this.#rateLimitWaitMs !== undefined) attributes[ATTR.rateLimitWaitMs] = Math.round(this.#rateLimitWaitMs);
      if (this.#keyed) attributes[ATTR.replayed] = outcome.replayed;
      if (outcome.error === undefined) attributes[ATTR.validation] = outcome.validated ? 'passed' : 'skipped';
      else if (outcome.error instanceof ResponseValidationError) attributes[ATTR.validation] = 'failed';
      const code = errorCode(outcome.error);
      if (code !== undefined) attributes[ATTR.errorCode] = code;
      settle(span.setAttributes(attributes), this.#failed);
      if (outcome.error !== undefined) markFailed(this.#api, span, errorType(outcome.error), this.#failed);
    }
    settle(span.end(), this.#failed);
  }
}

class TransactionWaitSpan implements TransactionWaitObservation {
  readonly #api: OpenTelemetryApi;
  readonly #span: Span;
  readonly #context: Context;
  readonly #failed: ReportFailure;
  #polls = 0;
  #status: string | undefined;

  constructor(api: OpenTelemetryApi, span: Span, failed: ReportFailure) {
    this.#api = api;
    this.#span = span;
    this.#context = api.trace.setSpan(api.context.active(), span);
    this.#failed = failed;
  }

  within<R>(work: () => R): R {
    return this.#api.context.with(this.#context, work);
  }

  polled(status: string): void {
    this.#polls++;
    this.#status = status;
  }

  end(error: unknown): void {
    const span = this.#span;
    const attributes: Attributes = { [ATTR.polls]: this.#polls };
    if (this.#status !== undefined) attributes[ATTR.transactionStatus] = transactionStatus(this.#status);
    const code = errorCode(error);
    if (code !== undefined) attributes[ATTR.errorCode] = code;
    settle(span.setAttributes(attributes), this.#failed);
    if (error !== undefined) markFailed(this.#api, span, errorType(error), this.#failed);
    settle(span.end(), this.#failed);
  }
}

class TracingObserver implements Instrument {
  readonly name = 'tracing';
  readonly #propagate: boolean;
  /** The last origin seen and its attributes: one client talks to one origin. */
  #origin = '';
  #server: ServerAttributes | undefined;
  /** The tracer, and the registered provider it came from: asked for again when that provider is replaced. */
  #tracer: Tracer | undefined;
  #provider: unknown;

  constructor(propagate: boolean) {
    this.#propagate = propagate;
  }

  get enabled(): boolean {
    return tracingRegistered();
  }

  #serverOf(origin: string): ServerAttributes {
    if (this.#server === undefined || this.#origin !== origin) {
      this.#server = serverAttributes(origin);
      this.#origin = origin;
    }
    return this.#server;
  }

  #tracerOf(api: OpenTelemetryApi): Tracer {
    // The global provider is the API's proxy; what it delegates to is what a registration replaces.
    const proxy = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
    const provider = proxy.getDelegate?.() ?? proxy;
    if (this.#tracer === undefined || provider !== this.#provider) {
      this.#provider = provider;
      this.#tracer = api.trace.getTracer(TRACER_NAME, VERSION);
    }
    return this.#tracer;
  }

  start(call: CallStart, failed: ReportFailure): CallObservation | undefined {
    const api = openTelemetryApi();
    if (api === undefined) return undefined;
    const server = this.#serverOf(call.origin);
    const template = urlTemplate(call);
    const attributes: Attributes = {
      [ATTR.method]: call.method,
      [ATTR.serverAddress]: server.address,
      [ATTR.serverPort]: server.port,
      [ATTR.urlScheme]: server.scheme,
      [ATTR.idempotencyKey]: call.idempotencyKey,
    };
    if (template !== undefined) attributes[ATTR.urlTemplate] = template;
    // Without a template (client.request()) the conventions name the span by its method alone.
    const name = template === undefined ? call.method : call.route;
    const tracer = this.#tracerOf(api);
    const span = tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes }, api.context.active());
    return new CallSpan(api, tracer, span, this.#propagate, call.idempotencyKey, failed);
  }

  startTransactionWait(wait: TransactionWaitStart, failed: ReportFailure): TransactionWaitObservation | undefined {
    const api = openTelemetryApi();
    if (api === undefined) return undefined;
    const attributes: Attributes = {};
    if (wait.operation !== undefined) attributes[ATTR.operation] = wait.operation;
    const span = this.#tracerOf(api).startSpan(wait.operation === undefined ? 'wait transaction' : `wait ${wait.operation}`, {
      kind: api.SpanKind.INTERNAL,
      attributes,
    });
    return new TransactionWaitSpan(api, span, failed);
  }
}

/** Spans of every call while a tracer provider is registered; `propagate` sends W3C trace context with each attempt. */
export function tracingObserver(propagate: boolean): Instrument {
  return new TracingObserver(propagate);
}
