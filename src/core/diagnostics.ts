/**
 * The `node:diagnostics_channel` channels of the client, for tools that watch calls without
 * OpenTelemetry (an APM agent, a test, a metrics exporter of your own):
 *
 * - `mobile-partner-sdk:request:start` — a call starts: {@link RequestStartMessage}.
 * - `mobile-partner-sdk:request:end` — it succeeded: {@link RequestEndMessage}.
 * - `mobile-partner-sdk:request:error` — it failed: {@link RequestErrorMessage}.
 *
 * One message per SDK call (retries and the 401 replay included), like undici's own channels
 * per request. Messages hold no secret and no body. The route is the template, except for
 * `client.request()`, whose route is the path as given: `request.rawPath` says which.
 * Channels are looked up through `process.getBuiltinModule`, never imported: where the runtime has
 * none, nothing is published and nothing is loaded. Nothing is built unless a channel has a subscriber.
 */
import type { CallEndReason } from './call-end.js';
import type { CallEnd, CallObservation, CallStart, Instrument } from './observer.js';
import { nodeBuiltin } from './runtime.js';
import { monotonicNow } from './sleep.js';

/** The call, as every message of it carries it (the same object in start, end and error). */
export interface DiagnosticsRequest extends CallStart {
  /** Increases by one per call of the process: tells concurrent calls apart. */
  readonly id: number;
}

/** Published on {@link REQUEST_START_CHANNEL} when a call starts, before its first attempt. */
export interface RequestStartMessage {
  /** The call. */
  readonly request: DiagnosticsRequest;
}

/** Published on {@link REQUEST_END_CHANNEL} when a call resolves. */
export interface RequestEndMessage {
  /** The call, the same object as in its start message. */
  readonly request: DiagnosticsRequest;
  /** The final answer's HTTP status. */
  readonly status: number;
  /** Requests sent for the call (1 without a retry or a 401 replay). */
  readonly attempts: number;
  /** The server replayed an earlier answer (`Idempotency-Replayed: true`). */
  readonly replayed: boolean;
  /** Why the call ended: always `answered` here (see {@link CallEndReason}). */
  readonly end: 'answered';
  /** From start to end, waits included. */
  readonly durationMs: number;
}

/** Published on {@link REQUEST_ERROR_CHANNEL} when a call rejects, after its last attempt. */
export interface RequestErrorMessage {
  /** The call, the same object as in its start message. */
  readonly request: DiagnosticsRequest;
  /** The error the call rejected with (a PartnerError, or the caller's abort reason). */
  readonly error: unknown;
  /** The last answer's HTTP status, when one came. */
  readonly status: number | undefined;
  /** Requests sent for the call; 0 when none left (refused input, closed client, limiter wait cut). */
  readonly attempts: number;
  /** Why the call ended, by name (`retries_exhausted`, `client_cut` …), as tracing's `partner.call.end`. */
  readonly end: CallEndReason;
  /** From start to end, waits included. */
  readonly durationMs: number;
}

/**
 * Name of the `node:diagnostics_channel` channel a call's {@link RequestStartMessage} is published on.
 *
 * @example
 * ```ts
 * import diagnostics from 'node:diagnostics_channel';
 * import { REQUEST_END_CHANNEL, type RequestEndMessage } from 'mobile-partner-sdk';
 *
 * diagnostics.subscribe(REQUEST_END_CHANNEL, (message) => {
 *   const { request, status, durationMs } = message as RequestEndMessage;
 *   console.log(request.method, request.route, status, durationMs);
 * });
 * ```
 */
export const REQUEST_START_CHANNEL = 'mobile-partner-sdk:request:start';
/** Name of the channel a call's {@link RequestEndMessage} is published on. */
export const REQUEST_END_CHANNEL = 'mobile-partner-sdk:request:end';
/** Name of the channel a call's {@link RequestErrorMessage} is published on. */
export const REQUEST_ERROR_CHANNEL = 'mobile-partner-sdk:request:error';

/** What the client uses of a channel. */
interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

interface ChannelModule {
  channel(name: string): Channel;
}

function channelModule(): ChannelModule | undefined {
  const loaded = nodeBuiltin('node:diagnostics_channel') as Partial<ChannelModule> | undefined;
  return typeof loaded?.channel === 'function' ? (loaded as ChannelModule) : undefined;
}

let nextId = 1;

class ChannelObservation implements CallObservation {
  readonly #observer: DiagnosticsObserver;
  readonly #request: DiagnosticsRequest;
  readonly #startedAt = monotonicNow();

  constructor(observer: DiagnosticsObserver, request: DiagnosticsRequest) {
    this.#observer = observer;
    this.#request = request;
  }

  attempt(): void {}
  attemptEnd(): void {}
  wait(): void {}
  waitEnd(): void {}

  end(outcome: CallEnd): void {
    const durationMs = monotonicNow() - this.#startedAt;
    const request = this.#request;
    if (outcome.error === undefined && outcome.status !== undefined) {
      const channel = this.#observer.endChannel;
      if (channel.hasSubscribers)
        channel.publish({ request, status: outcome.status, attempts: outcome.attempts, replayed: outcome.replayed, end: 'answered', durationMs });
    } else {
      const channel = this.#observer.errorChannel;
      if (channel.hasSubscribers)
        channel.publish({ request, error: outcome.error, status: outcome.status, attempts: outcome.attempts, end: outcome.reason, durationMs });
    }
  }
}

/**
 * Each channel is looked up by name when it is used, never held: Node 20's registry forgets a
 * channel when an older channel of the same name is collected, so a held channel could be one a
 * subscriber by name (`diagnostics.subscribe(name, fn)`) never reaches.
 */
class DiagnosticsObserver implements Instrument {
  readonly name = 'diagnostics';
  readonly #channels: ChannelModule;

  constructor(channels: ChannelModule) {
    this.#channels = channels;
  }

  get startChannel(): Channel {
    return this.#channels.channel(REQUEST_START_CHANNEL);
  }

  get endChannel(): Channel {
    return this.#channels.channel(REQUEST_END_CHANNEL);
  }

  get errorChannel(): Channel {
    return this.#channels.channel(REQUEST_ERROR_CHANNEL);
  }

  get enabled(): boolean {
    return this.startChannel.hasSubscribers || this.endChannel.hasSubscribers || this.errorChannel.hasSubscribers;
  }

  start(call: CallStart): CallObservation {
    const request: DiagnosticsRequest = { id: nextId++, ...call };
    const channel = this.startChannel;
    if (channel.hasSubscribers) channel.publish({ request });
    return new ChannelObservation(this, request);
  }
}

/** The channels' observer where the runtime has `node:diagnostics_channel`; undefined elsewhere. */
export function diagnosticsObserver(): Instrument | undefined {
  const channels = channelModule();
  return channels ? new DiagnosticsObserver(channels) : undefined;
}
