/**
 * OpenTelemetry metrics of the client, behind the pipeline's one seam. Enabled while a meter
 * provider is registered with `@opentelemetry/api` (see otel-api.ts); without one, nothing is
 * loaded and nothing built. Instruments, all under the meter `mobile-partner-sdk`:
 *
 * - `partner.client.call.duration` (histogram, s): each SDK call from start to end, waits and
 *   retries included, by method, route template and status class (`2xx` … `5xx`, `none`).
 * - `partner.client.retries` (counter): retries sent, by route template and reason (`503`, `TimeoutError` …).
 * - `partner.client.rate_limited` (counter): 429 answers received, by route template.
 * - `partner.client.rate_limit.wait.duration` (histogram, s): time spent queued by the client's limiter.
 * - `partner.client.active_calls` (up-down counter): calls started and not yet settled.
 *
 * A `client.request()` call has no route template: it is counted by method alone.
 */
import { type CallEnd, type CallObservation, type CallStart, type Instrument, type ReportFailure, type WaitReason } from './observer.js';
import { settle } from './thenable.js';
import { type OpenTelemetryApi, metricsRegistered, openTelemetryApi } from './otel-api.js';
import type { Attributes, Histogram, MeterProvider, UpDownCounter, Counter } from '@opentelemetry/api';
import { monotonicNow } from './sleep.js';
import { ATTR, attemptErrorType, errorType, statusClass, urlTemplate } from './telemetry-attributes.js';
import { VERSION } from './version.js';

const METER_NAME = 'mobile-partner-sdk';

/** The HTTP conventions' advice for request durations, in seconds. */
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** Limiter waits run from nothing to a minute (the spec's windows). */
const WAIT_BUCKETS_S = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Instruments {
  readonly duration: Histogram;
  readonly retries: Counter;
  readonly rateLimited: Counter;
  readonly limiterWait: Histogram;
  readonly active: UpDownCounter;
}

function createInstruments(api: OpenTelemetryApi): Instruments {
  const meter = api.metrics.getMeter(METER_NAME, VERSION);
  return {
    duration: meter.createHistogram('partner.client.call.duration', {
      unit: 's',
      description: 'Duration of SDK calls, retries and waits included',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
    retries: meter.createCounter('partner.client.retries', { unit: '{retry}', description: 'Retries sent, by reason' }),
    rateLimited: meter.createCounter('partner.client.rate_limited', { unit: '{response}', description: 'HTTP 429 answers received' }),
    limiterWait: meter.createHistogram('partner.client.rate_limit.wait.duration', {
      unit: 's',
      description: "Time calls spent queued by the client's rate limiter",
      advice: { explicitBucketBoundaries: WAIT_BUCKETS_S },
    }),
    active: meter.createUpDownCounter('partner.client.active_calls', { unit: '{call}', description: 'SDK calls in progress' }),
  };
}

/** Instruments of the registered provider, made again when another provider is registered. */
let made: { provider: MeterProvider; instruments: Instruments } | undefined;

function instruments(api: OpenTelemetryApi): Instruments {
  const provider = api.metrics.getMeterProvider();
  if (made?.provider !== provider) made = { provider, instruments: createInstruments(api) };
  return made.instruments;
}

class CallMeasurement implements CallObservation {
  readonly #instruments: Instruments;
  /** Method and route template: the attributes of every measurement of the call. */
  readonly #route: Attributes;
  readonly #startedAt = monotonicNow();
  #waitStartedAt = 0;
  #lastFailure: string | undefined;
  readonly #failed: ReportFailure;

  constructor(instruments: Instruments, route: Attributes, failed: ReportFailure) {
    this.#instruments = instruments;
    this.#route = route;
    this.#failed = failed;
    settle(instruments.active.add(1, route), failed);
  }

  attempt(): void {}

  attemptEnd(_attempt: number, outcome: { status: number | undefined; error: unknown }): void {
    this.#lastFailure = attemptErrorType(outcome.status, outcome.error);
    if (outcome.status === 429) settle(this.#instruments.rateLimited.add(1, this.#route), this.#failed);
  }

  wait(reason: WaitReason): void {
    this.#waitStartedAt = monotonicNow();
    if (reason === 'retry')
      settle(this.#instruments.retries.add(1, { ...this.#route, [ATTR.retryReason]: this.#lastFailure ?? '_OTHER' }), this.#failed);
  }

  waitEnd(reason: WaitReason): void {
    if (reason === 'rate-limit')
      settle(this.#instruments.limiterWait.record((monotonicNow() - this.#waitStartedAt) / 1000, this.#route), this.#failed);
  }

  end(outcome: CallEnd): void {
    const instruments = this.#instruments;
    settle(instruments.active.add(-1, this.#route), this.#failed);
    const attributes: Attributes = { ...this.#route, [ATTR.statusClass]: statusClass(outcome.status) };
    if (outcome.error !== undefined) attributes[ATTR.errorType] = errorType(outcome.error);
    settle(instruments.duration.record((monotonicNow() - this.#startedAt) / 1000, attributes), this.#failed);
  }
}

class MetricsObserver implements Instrument {
  readonly name = 'metrics';

  get enabled(): boolean {
    return metricsRegistered();
  }

  start(call: CallStart, failed: ReportFailure): CallObservation | undefined {
    const api = openTelemetryApi();
    if (api === undefined) return undefined;
    const route: Attributes = { [ATTR.method]: call.method };
    const template = urlTemplate(call);
    if (template !== undefined) route[ATTR.urlTemplate] = template;
    return new CallMeasurement(instruments(api), route, failed);
  }
}

/** Measurements of every call while a meter provider is registered. */
export function metricsObserver(): Instrument {
  return new MetricsObserver();
}
