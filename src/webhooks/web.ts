/**
 * `mobile-partner-sdk/webhooks` as runtimes without Node's modules get it (Cloudflare Workers,
 * Vercel Edge; chosen by the package's `workerd` and `edge-light`
 * export conditions): everything of the receiving side that runs on web standards alone. The
 * Node forms (`verifySignature`, `constructEvent`, `signPayload`), the Node and Express
 * adapters, and the voice stream and WAV helpers are left out, so that a bundle for those runtimes
 * needs no Node module. Their async counterparts are here.
 */
export { WebhookSignatureError } from '../core/errors.js';
export { WebhookHandlerError } from './handler-error.js';
export type { WebhookHandlerStage } from './handler-error.js';
export type { WebhookSignatureFailureReason } from '../core/errors.js';
export { DEFAULT_TOLERANCE_SECONDS } from './signature-check.js';
export type { AsyncWebhookSecretSource, VerifyOptions, VerifiedSignature, WebhookSecret, WebhookSecretSource } from './signature-check.js';
export { DEFAULT_MAX_SIGNATURE_HEADER_LENGTH } from './signature-header.js';
export { verifySignatureAsync } from './verify-async.js';
export { constructEventAsync } from './events-async.js';
export type { ConstructEventOptions } from './event-body.js';
export { classifyEvent } from './event-types.js';
export { voiceTestCompletedSchema } from './voice-test-completed-schema.js';
export type {
  DeliveryInfo,
  JsonObject,
  SmsEvent,
  SmsEventData,
  UnknownEvent,
  VoiceEvent,
  VoiceEventData,
  VoiceTestCompletedData,
  VoiceTestCompletedEvent,
  WebhookEvent,
  WebhookEventBase,
  WebhookEventType,
  WebhookTestEvent,
  WebhookTestEventData,
} from './event-types.js';
export { readHeader, SIGNATURE_HEADER, TIMESTAMP_HEADER, EVENT_HEADER, DELIVERY_HEADER } from './headers.js';
export type { DeliveryHeaders, HeaderRecord, HeadersLike } from './headers.js';
export type { RawBody } from './raw-body.js';
export { createFetchHandler } from './adapters/fetch.js';
export { DEFAULT_MAX_BODY_BYTES } from './adapters/deliver.js';
export type { WebhookHandlerOptions } from './adapters/deliver.js';
export { createDeduplicator, EventInProgressError, MemoryDedupeStore, defaultDedupeKey, DEFAULT_DEDUPE_TTL_MS } from './dedupe.js';
export type { DedupeClaim, DedupeOptions, DedupeStore, Deduplicator, EventClaim, MemoryDedupeStoreOptions } from './dedupe.js';
