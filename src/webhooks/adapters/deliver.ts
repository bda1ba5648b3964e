import { DEFAULT_MAX_BODY_BYTES } from '../../core/defaults.js';
import { WebhookSignatureError } from '../../core/errors.js';
import { type Deduplicator, EventInProgressError } from '../dedupe.js';
import type { WebhookEvent } from '../event-types.js';
import { CONSTRUCT_EVENT_OPTION_NAMES, type ConstructEventOptions } from '../event-body.js';
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
  /** Told of every refused delivery and every failure of `onEvent`. */
  onError?: (error: unknown) => void;
  /** The current time, read for each delivery; for tests against a sandbox with a scaled clock. */
  now?: () => Date;
  /** Largest accepted body; a larger one is answered 413. Default 1 MiB. */
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
 */
export function checkHandlerOptions(options: WebhookHandlerOptions, adapter: string): void {
  refuseUnknownOptions(options, HANDLER_OPTION_NAMES, adapter);
  const secret = (options as Partial<WebhookHandlerOptions> | undefined)?.secret;
  // A function is called, and its answer checked, for each delivery.
  if (typeof secret !== 'function') checkSecrets(secret);
  if (typeof options.onEvent !== 'function') throw new TypeError('the webhook handler needs an onEvent function');
}

/** Tells `onError` (guarded: a failing reporter never changes the answer), or warns for handler failures. */
export function report(options: WebhookHandlerOptions, error: unknown): void {
  if (options.onError) {
    try {
      options.onError(error);
    } catch {
      // A failing error reporter must not change the answer given to the service.
    }
    return;
  }
  if (!(error instanceof WebhookSignatureError)) {
    const message = error instanceof Error ? error.message : String(error);
    globalThis.process?.emitWarning?.(`webhook onEvent failed: ${message}`, 'WebhookHandlerWarning');
  }
}

async function runHandler(event: WebhookEvent, options: WebhookHandlerOptions): Promise<boolean> {
  try {
    await options.onEvent(event);
  } catch (error) {
    report(options, error);
    try {
      // Forget the event so the service's retry of it is processed, not answered as a duplicate.
      await options.dedupe?.release(event);
    } catch (releaseError) {
      // The claim stays until its lease ends; a retry after that is processed.
      report(options, releaseError);
    }
    return false;
  }
  try {
    await options.dedupe?.complete?.(event);
    return true;
  } catch (error) {
    // Handled but not recorded as handled: not answered 2xx, so the service delivers it again
    // (handled again once the claim's lease ends) rather than have it look handled and be lost.
    report(options, error);
    return false;
  }
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
    report(options, error);
    if (error instanceof WebhookSignatureError) {
      // The receiver's own secret is missing: its problem, not the sender's, so the service retries.
      if (error.reason === 'invalid_secret') return answers.secretUnavailable;
      // The reason is machine-readable and safe; the message stays server-side.
      return { status: 400, body: { error: 'invalid_webhook', reason: error.reason } };
    }
    return answers.handlerFailed;
  }

  if (options.dedupe) {
    let first: boolean;
    try {
      first = await options.dedupe.claim(event);
    } catch (error) {
      if (error instanceof EventInProgressError) return answers.inProgress;
      report(options, error);
      return answers.handlerFailed;
    }
    if (!first) return answers.duplicate;
  }

  if (options.awaitHandler === false) {
    // A macrotask, so the answer is on its way before any of the handler's own work runs.
    setTimeout(() => void runHandler(event, options), 0);
    return answers.received;
  }
  return (await runHandler(event, options)) ? answers.received : answers.handlerFailed;
}
