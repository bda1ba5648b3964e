/**
 * Why a call ended, as one value. Every way a call can end has a name in {@link CALL_ENDS}; an
 * ending the client decides itself (a deadline, a cut, a closed limiter) is turned into its error
 * here and nowhere else — by {@link endError}, or by {@link fleetEndError} for the two only fleet
 * mode meets — and that error remembers its ending ({@link endOf}). Tracing (`partner.call.end`)
 * and diagnostics (`end` of a message) report the same name.
 */
import { ClientClosedError, ConnectionError, TimeoutError } from './errors.js';

/**
 * Why a call ended, by name: `answered` when it returns its result, else the ending that made it
 * reject (docs/observability.md, "Why a call ended"). Read it as `partner.call.end` on the call's
 * span, or as `end` of its diagnostics message.
 */
export type CallEndReason =
  | 'answered'
  | 'not_retryable'
  | 'retries_exhausted'
  | 'server_wait_too_long'
  | 'retry_past_deadline'
  | 'deadline'
  | 'rate_limit_wait_past_deadline'
  | 'original_in_flight'
  | 'aborted'
  | 'token_failed'
  | 'middleware_error'
  | 'client_closed'
  | 'client_cut'
  | 'limiter_closed'
  | 'limiter_unavailable';

/** Every ending of a call with what it means (docs/observability.md's table is held to it). */
export const CALL_ENDS: Readonly<Record<CallEndReason, string>> = {
  answered: 'the server answered and the call returns its result',
  not_retryable:
    'the attempt failed in a way that is not tried again: an error answer such as a 4xx, or a write that may have reached the server with no idempotency to cover it',
  retries_exhausted: 'the attempt failed in a way that is tried again, and `maxRetries` retries were made',
  server_wait_too_long: "the server's Retry-After asked for longer than `maxServerWaitMs`",
  retry_past_deadline: "the next retry's wait would end past the call's deadline",
  deadline: "the call's deadline came before its next attempt could be sent",
  rate_limit_wait_past_deadline: "the rate limiter's wait would end past the call's deadline",
  original_in_flight: "the deadline came while an earlier attempt with the call's Idempotency-Key was still being processed",
  aborted: "the caller's `signal` aborted",
  token_failed: 'the token exchange failed',
  middleware_error: 'a middleware threw an error of its own',
  client_closed: 'the call was made on a closed client',
  client_cut: '`destroy()`, or `close()` past its timeout, cut the call',
  limiter_closed: 'the rate limiter was closed while the call waited for a slot',
  limiter_unavailable: "the fleet limiter's Redis failed under `onStoreError: 'fail-closed'`",
};

/** An ending whose error the client builds, with what its message names. */
export type BuiltEnding =
  | { readonly reason: 'client_closed'; readonly route: string | undefined }
  | { readonly reason: 'client_cut'; readonly route: string; readonly why: string; readonly inFlight: boolean; readonly nothingSent: boolean }
  | { readonly reason: 'limiter_closed' }
  | { readonly reason: 'deadline'; readonly route: string; readonly timeoutMs: number }
  | { readonly reason: 'rate_limit_wait_past_deadline'; readonly route: string; readonly timeoutMs: number; readonly waitMs: number | undefined }
  | { readonly reason: 'original_in_flight'; readonly route: string; readonly timeoutMs: number };

/** The error class of each built ending. */
interface BuiltErrors {
  client_closed: ClientClosedError;
  client_cut: ClientClosedError;
  limiter_closed: ClientClosedError;
  deadline: TimeoutError;
  rate_limit_wait_past_deadline: TimeoutError;
  original_in_flight: TimeoutError;
}

const builtBy = new WeakMap<object, CallEndReason>();

/** The error of an ending the client decides; it remembers the ending (see {@link endOf}). */
export function endError<R extends BuiltEnding['reason']>(ending: Extract<BuiltEnding, { reason: R }>): BuiltErrors[R] {
  const error = buildError(ending);
  builtBy.set(error, ending.reason);
  return error as BuiltErrors[R];
}

function buildError(ending: BuiltEnding): BuiltErrors[keyof BuiltErrors] {
  switch (ending.reason) {
    case 'client_closed':
      return new ClientClosedError(ending.route === undefined ? 'the client is closed' : `${ending.route}: the client is closed`);
    case 'client_cut':
      return new ClientClosedError(
        `${ending.route}: ${ending.why} ${ending.inFlight ? 'while its request was in flight' : 'before the call finished'}`,
        { requestNotSent: ending.nothingSent },
      );
    case 'limiter_closed':
      return new ClientClosedError('the client was closed while the call waited for a rate-limit slot');
    // Thrown before sending: the attempt provably never left.
    case 'deadline':
      return new TimeoutError(`${ending.route} ran past its deadline`, ending.timeoutMs, { requestNotSent: true });
    case 'rate_limit_wait_past_deadline': {
      const wait = ending.waitMs === undefined ? '' : ` (${Math.ceil(ending.waitMs)} ms)`;
      return new TimeoutError(`${ending.route}: the rate-limit wait${wait} would end past the call's deadline`, ending.timeoutMs, {
        requestNotSent: true,
      });
    }
    case 'original_in_flight':
      return new TimeoutError(
        `${ending.route}: an earlier attempt with this Idempotency-Key was still in progress on the server when the call's deadline came`,
        ending.timeoutMs,
      );
  }
}

/** An ending only fleet mode meets, with what its message names. */
type FleetEnding =
  | { readonly reason: 'limiter_closed' }
  | { readonly reason: 'limiter_unavailable'; readonly route: string | undefined; readonly why: string; readonly cause: unknown };

/**
 * The endings only fleet mode meets, its limiter closed by its owner or its Redis failing under
 * `'fail-closed'`: apart from {@link endError}, so that a client without fleet mode does not carry
 * their messages.
 */
export function fleetEndError(ending: Extract<FleetEnding, { reason: 'limiter_closed' }>): ClientClosedError;
export function fleetEndError(ending: Extract<FleetEnding, { reason: 'limiter_unavailable' }>): ConnectionError;
export function fleetEndError(ending: FleetEnding): ClientClosedError | ConnectionError {
  const error =
    ending.reason === 'limiter_closed'
      ? new ClientClosedError('the rate limiter was closed while the call waited for a slot')
      : new ConnectionError(
          `${ending.route ?? 'rate limiter'}: the rate limiter's store (Redis) is unavailable (${ending.why}); the request was not sent`,
          {
            cause: ending.cause,
            requestNotSent: true,
          },
        );
  builtBy.set(error, ending.reason);
  return error;
}

/** The ending an error was built for by {@link endError} or {@link fleetEndError}; undefined for any other error. */
export function endOf(error: unknown): CallEndReason | undefined {
  return typeof error === 'object' && error !== null ? builtBy.get(error) : undefined;
}
