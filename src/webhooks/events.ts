import type { WebhookEvent } from './event-types.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import { CONSTRUCT_EVENT_OPTION_NAMES, eventFromBody, type ConstructEventOptions } from './event-body.js';
import { readHeader, SIGNATURE_HEADER, type DeliveryHeaders } from './headers.js';
import type { RawBody } from './raw-body.js';
import type { WebhookSecretSource } from './signature-check.js';
import { verifyWithNodeCrypto } from './verify.js';

/**
 * Verifies a delivery (see {@link verifySignature}), then parses the JSON body into a typed
 * event sorted by `classifyEvent`. A body that is authentic but not JSON, or not of its event's
 * shape (a voice.test.completed without `id`), throws `WebhookSignatureError` with reason
 * `invalid_payload`: one error class covers every reason to refuse a delivery.
 *
 * @throws {WebhookSignatureError} with a machine-readable `reason`.
 * @throws `ConfigurationError` for an unknown option, naming it and the nearest known one.
 * @example
 * ```ts
 * import type { IncomingHttpHeaders } from 'node:http';
 * import { constructEvent } from 'mobile-partner-sdk';
 *
 * declare const rawBody: Buffer; // the body exactly as received
 * declare const headers: IncomingHttpHeaders;
 * const event = constructEvent(rawBody, headers, process.env.WEBHOOK_SIGNING_SECRET ?? '');
 * if (event.type === 'voice.test.completed') console.log(event.id, event.data);
 * ```
 */
export function constructEvent(
  rawBody: RawBody,
  headers: DeliveryHeaders,
  secret: WebhookSecretSource,
  options: ConstructEventOptions = {},
): WebhookEvent {
  refuseUnknownOptions(options, CONSTRUCT_EVENT_OPTION_NAMES, 'constructEvent');
  const { timestamp } = verifyWithNodeCrypto(rawBody, readHeader(headers, SIGNATURE_HEADER), secret, options);
  return eventFromBody(rawBody, headers, timestamp, options);
}
