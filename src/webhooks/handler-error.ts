import { PartnerError } from '../core/errors.js';
import type { WebhookEvent } from './event-types.js';

/**
 * Where an adapter's work on a verified (or verifiable) delivery failed: reading its raw body,
 * verifying it, claiming it for dedupe, running `onEvent`, or recording the outcome with the
 * dedupe store (done after a success, the claim given back after a failure).
 */
export type WebhookHandlerStage = 'body' | 'verify' | 'claim' | 'handler' | 'complete' | 'release';

const WHAT: Readonly<Record<WebhookHandlerStage, string>> = {
  body: 'the raw body of the delivery is missing',
  verify: 'the delivery could not be verified',
  claim: 'the dedupe store could not claim the event',
  handler: 'onEvent failed',
  complete: 'the event was handled but could not be recorded as done',
  release: "the failed event's claim could not be given back",
};

/**
 * A failure of the receiver's own side, given to an adapter's `onError` (a refused signature is a
 * {@link WebhookSignatureError} instead). `cause` is what was thrown (by `onEvent`, the dedupe
 * store, your own deduplicator); `stage` says where.
 *
 * @group Errors
 */
export class WebhookHandlerError extends PartnerError {
  override name = 'WebhookHandlerError';
  readonly code = 'WEBHOOK_HANDLER_FAILED' as const;
  readonly stage: WebhookHandlerStage;
  /** The event, once it was verified and parsed. */
  readonly event: WebhookEvent | undefined;
  constructor(stage: WebhookHandlerStage, cause: unknown, event?: WebhookEvent) {
    super(`webhook ${WHAT[stage]}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.stage = stage;
    this.event = event;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), code: this.code, stage: this.stage, eventType: this.event?.type };
  }
}
