import type { WebhookEvent } from './event-types.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import { CONSTRUCT_EVENT_OPTION_NAMES, eventFromBody, type ConstructEventOptions } from './event-body.js';
import { readHeader, SIGNATURE_HEADER, type DeliveryHeaders } from './headers.js';
import type { RawBody } from './raw-body.js';
import type { AsyncWebhookSecretSource } from './signature-check.js';
import { verifyWithWebCrypto } from './verify-async.js';

/**
 * `constructEvent` with Web Crypto (see {@link verifySignatureAsync}): the same checks, the
 * same events and the same `WebhookSignatureError` reasons, in any runtime. `secret` may also be
 * a function returning a promise of the secret.
 *
 * ```ts
 * const event = await constructEventAsync(await request.text(), request.headers, env.SIGNING_SECRET);
 * ```
 *
 * @throws {WebhookSignatureError} (as a rejection) with a machine-readable `reason`; a
 * `ConfigurationError` for an unknown option.
 */
export async function constructEventAsync(
  rawBody: RawBody,
  headers: DeliveryHeaders,
  secret: AsyncWebhookSecretSource,
  options: ConstructEventOptions = {},
): Promise<WebhookEvent> {
  refuseUnknownOptions(options, CONSTRUCT_EVENT_OPTION_NAMES, 'constructEventAsync');
  const { timestamp } = await verifyWithWebCrypto(rawBody, readHeader(headers, SIGNATURE_HEADER), secret, options);
  return eventFromBody(rawBody, headers, timestamp, options);
}
