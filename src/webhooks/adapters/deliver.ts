import { DEFAULT_MAX_BODY_BYTES } from '../../core/defaults.js';
import { positiveIntegerProblem } from '../../shared/integer-option.js';
import { checkOption } from '../options.js';
import { WebhookSignatureError } from '../../core/errors.js';
import { parseDigits } from '../../shared/http-grammar.js';
import { type Deduplicator, type EventClaim, EventInProgressError } from '../dedupe.js';
import type { WebhookEvent } from '../event-types.js';
import { CONSTRUCT_EVENT_OPTION_NAMES, type ConstructEventOptions } from '../event-body.js';
import { WebhookHandlerError } from '../handler-error.js';
import type { DeliveryHeaders } from '../headers.js';
import { checkSecrets, resolveSecretAsync, type AsyncWebhookSecretSource, type WebhookSecret } from '../signature-check.js';
import { refuseUnknownOptions } from '../../core/unknown-options.js';
import type { OptionNames } from '../../shared/option-names.js';

/**
 * Options of the framework adapters ({@link createNodeHandler}, {@link webhookMiddleware},
 * {@link createFetchHandler}): how a delivery is verified, handed to you and answered.
 */
export interface WebhookHandlerOptions extends Omit<ConstructEventOptions, 'now'> {
  /**
   * The registration's signingSecret, or several during a rotation; or a function returning
   * either, or a promise of either, called for each delivery (to read a secret manager, or
   * rotate without rebuilding the handler). A function that throws or rejects makes the delivery
   * answered 500 `secret_unavailable` (so the service retries), with the error given to `onError`.
   */
  secret: AsyncWebhookSecretSource;
  /** Receives each verified event. */
  onEvent: (event: WebhookEvent) => unknown;
  /**
   * Answers repeat deliveries 200 without calling `onEvent` again. A delivery is answered 2xx
   * only once its event is recorded as handled: a repeat that arrives while the event is still
   * being handled is answered 409 `in_progress`, and a store that fails is answered 500, so the
   * sender delivers it again.
   */
  dedupe?: Deduplicator;
  /**
   * true (default): answer once `onEvent` settles — 200 when it resolves, 500 when it throws, so
   * the service retries. false: answer 200 as soon as the delivery is verified and run `onEvent`
   * afterwards (failures go to `onError`); for handlers slower than the service's patience
   * (10 seconds for voice quality deliveries, spec part 6).
   */
  awaitHandler?: boolean;
  /**
   * Told of every refused delivery (a {@link WebhookSignatureError}, its `reason` says why) and
   * every failure on the receiver's side (a {@link WebhookHandlerError}: its `stage` says where,
   * its `cause` is what `onEvent` or the dedupe store threw).
   */
  onError?: (error: WebhookSignatureError | WebhookHandlerError) => void;
  /** The current time, read for each delivery; for tests against a sandbox with a scaled clock. */
  now?: () => Date;
  /** Largest accepted body in bytes, a positive integer; a larger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
}

const HANDLER_OPTION_NAMES = {
  ...CONSTRUCT_EVENT_OPTION_NAMES,
  secret: true,
  onEvent: true,
  dedupe: true,
  awaitHandler: true,
  onError: true,
  now: true,
  maxBodyBytes: true,
} as const satisfies OptionNames<WebhookHandlerOptions>;

export interface DeliveryAnswer {
  status: number;
  body: Readonly<Record<string, unknown>>;
}

export { DEFAULT_MAX_BODY_BYTES };

export const answers = {
  received: { status: 200, body: { received: true } },
  duplicate: { status: 200, body: { received: true, duplicate: true } },
  handlerFailed: { status: 500, body: { error: 'handler_failed' } },
  inProgress: { status: 409, body: { error: 'in_progress' } },
  tooLarge: { status: 413, body: { error: 'payload_too_large' } },
  methodNotAllowed: { status: 405, body: { error: 'method_not_allowed' } },
  secretUnavailable: { status: 500, body: { error: 'secret_unavailable' } },
} as const satisfies Record<string, DeliveryAnswer>;

/**
 * Checked when an adapter is made, so that a missing secret (an unset environment variable is
 * the usual cause) stops the receiver at start-up instead of answering every delivery 400.
 * `adapter` names the function that was called, for the error of an unknown option.
 *
 * @throws {ConfigurationError} for an unknown option, naming it and the nearest known one
 * @throws {WebhookSignatureError} reason `invalid_secret`
 * @throws {TypeError} when `onEvent` is not a function
 * @throws `ConfigurationError` when `maxBodyBytes` is not a positive integer
 */
export function checkHandlerOptions(options: WebhookHandlerOptions, adapter: string): void {
  refuseUnknownOptions(options, HANDLER_OPTION_NAMES, adapter);
  const secret = (options as Partial<WebhookHandlerOptions> | undefined)?.secret;
  // A function is called, and its answer checked, for each delivery.
  if (typeof secret !== 'function') checkSecrets(secret);
  if (typeof options.onEvent !== 'function') throw new TypeError('the webhook handler needs an onEvent function');
  // Compared with every body's length: NaN or a string would never be exceeded.
  checkOption('webhook handler', 'maxBodyBytes', options.maxBodyBytes, positiveIntegerProblem);
}

/**
 * A delivery's `Content-Length` when it is one (`1*DIGIT`, RFC 9110 8.6, read as the client's
 * wires read it); a malformed one is left to the byte count, never read as a number it is not.
 */
export function declaredLength(value: string | null | undefined): number | undefined {
  return parseDigits(value ?? undefined);
}

/** Tells `onError` (guarded: a failing reporter never changes the answer), or warns for handler failures. */
export function report(options: WebhookHandlerOptions, error: WebhookSignatureError | WebhookHandlerError): void {
  if (options.onError) {
    try {
      options.onError(error);
    } catch {
      // A failing error reporter must not change the answer given to the service.
    }
    return;
  }
  if (error instanceof WebhookHandlerError) globalThis.process?.emitWarning?.(error.message, 'WebhookHandlerWarning');
}

async function runHandler(event: WebhookEvent, claim: EventClaim | undefined, options: WebhookHandlerOptions): Promise<boolean> {
  try {
    await options.onEvent(event);
  } catch (error) {
    report(options, new WebhookHandlerError('handler', error, event));
    try {
      // Give this delivery's claim back so the service's retry is processed, not answered as a duplicate.
      await claim?.release();
    } catch (releaseError) {
      // The claim stays until its lease ends; a retry after that is processed.
      report(options, new WebhookHandlerError('release', releaseError, event));
    }
    return false;
  }
  try {
    await claim?.complete();
    return true;
  } catch (error) {
    // Handled but not recorded as handled: not answered 2xx, so the service delivers it again
    // (handled again once the claim's lease ends) rather than have it look handled and be lost.
    report(options, new WebhookHandlerError('complete', error, event));
    return false;
  }
}

/**
 * The deduplicator's answer for this delivery: a claim to handle, or undefined for a repeat.
 * Anything else (a deduplicator of your own answering `true`, `null`) is outside its contract and
 * throws, so the delivery is refused and sent again rather than answered 2xx unhandled.
 */
async function claimOf(dedupe: Deduplicator, event: WebhookEvent): Promise<EventClaim | undefined> {
  const claim: unknown = await dedupe.claim(event);
  if (claim === undefined || isEventClaim(claim)) return claim;
  const shown =
    typeof claim === 'boolean' || claim === null
      ? String(claim)
      : typeof claim === 'object'
        ? 'an object without complete() and release()'
        : `a ${typeof claim}`;
  throw new TypeError(`dedupe.claim() resolved ${shown}; expected an EventClaim to handle, or undefined for a repeat`);
}

function isEventClaim(value: unknown): value is EventClaim {
  const claim = value as Partial<EventClaim> | null;
  return typeof claim === 'object' && claim !== null && typeof claim.complete === 'function' && typeof claim.release === 'function';
}

/**
 * How an adapter turns a verified delivery into an event: `constructEvent` in Node (its crypto is
 * the fastest there), `constructEventAsync` where only Web Crypto may exist.
 */
export type ConstructFn = (
  rawBody: string | Uint8Array,
  headers: DeliveryHeaders,
  secret: WebhookSecret,
  options: ConstructEventOptions,
) => WebhookEvent | Promise<WebhookEvent>;

/** What every adapter does once it holds the raw bytes: verify, parse, dedupe, hand over, answer. */
export async function deliver(
  rawBody: string | Uint8Array,
  headers: DeliveryHeaders,
  options: WebhookHandlerOptions,
  construct: ConstructFn,
): Promise<DeliveryAnswer> {
  let event: WebhookEvent;
  try {
    const { now, secret: source, toleranceSeconds, maxHeaderLength, fallbackType } = options;
    const secret = await resolveSecretAsync(source);
    checkSecrets(secret);
    event = await construct(rawBody, headers, secret, { toleranceSeconds, maxHeaderLength, fallbackType, now: now?.() });
  } catch (error) {
    if (!(error instanceof WebhookSignatureError)) {
      report(options, new WebhookHandlerError('verify', error));
      return answers.handlerFailed;
    }
    report(options, error);
    // The receiver's own secret is missing: its problem, not the sender's, so the service retries.
    if (error.reason === 'invalid_secret') return answers.secretUnavailable;
    // The reason is machine-readable and safe; the message stays server-side.
    return { status: 400, body: { error: 'invalid_webhook', reason: error.reason } };
  }

  let claim: EventClaim | undefined;
  if (options.dedupe) {
    try {
      claim = await claimOf(options.dedupe, event);
    } catch (error) {
      if (error instanceof EventInProgressError) return answers.inProgress;
      report(options, new WebhookHandlerError('claim', error, event));
      return answers.handlerFailed;
    }
    if (!claim) return answers.duplicate;
  }

  if (options.awaitHandler === false) {
    // A macrotask, so the answer is on its way before any of the handler's own work runs.
    setTimeout(() => void runHandler(event, claim, options), 0);
    return answers.received;
  }
  return (await runHandler(event, claim, options)) ? answers.received : answers.handlerFailed;
}
