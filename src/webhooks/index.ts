/**
 * `mobile-partner-sdk/webhooks`: the receiving side only — signatures, typed events, framework
 * adapters, deduplication and the live voice stream. Pulls in no client code.
 */
export { WebhookSignatureError } from '../core/errors.js';
export type { WebhookSignatureFailureReason } from '../core/errors.js';
export { verifySignature, DEFAULT_TOLERANCE_SECONDS } from './verify.js';
export { verifySignatureAsync } from './verify-async.js';
export { DEFAULT_MAX_SIGNATURE_HEADER_LENGTH } from './signature-header.js';
export type { AsyncWebhookSecretSource, VerifyOptions, VerifiedSignature, WebhookSecret, WebhookSecretSource } from './signature-check.js';
export { signPayload } from './sign.js';
export type { SignOptions } from './sign.js';
export { constructEvent } from './events.js';
export { constructEventAsync } from './events-async.js';
export type { ConstructEventOptions } from './event-body.js';
export { classifyEvent, voiceTestCompletedSchema } from './event-types.js';
export type {
  DeliveryInfo,
  JsonObject,
  SmsEvent,
  SmsEventData,
  UnknownEvent,
  VoiceEvent,
  VoiceTestCompletedData,
  VoiceTestCompletedEvent,
  WebhookEvent,
  WebhookEventType,
  WebhookTestEvent,
} from './event-types.js';
export { readHeader, SIGNATURE_HEADER, TIMESTAMP_HEADER, EVENT_HEADER, DELIVERY_HEADER } from './headers.js';
export type { DeliveryHeaders, HeaderRecord, HeadersLike } from './headers.js';
export type { RawBody } from './raw-body.js';
export { createNodeHandler } from './adapters/node.js';
export { webhookMiddleware, RAW_BODY_MISSING_MESSAGE } from './adapters/express.js';
export type { ExpressLikeRequest } from './adapters/express.js';
export { createFetchHandler } from './adapters/fetch.js';
export { DEFAULT_MAX_BODY_BYTES } from './adapters/deliver.js';
export type { WebhookHandlerOptions } from './adapters/deliver.js';
export { createDeduplicator, MemoryDedupeStore, defaultDedupeKey, DEFAULT_DEDUPE_TTL_MS } from './dedupe.js';
export type { DedupeOptions, DedupeStore, Deduplicator, MemoryDedupeStoreOptions } from './dedupe.js';
export { VoiceStreamReceiver, createVoiceStreamServer } from './voice-stream.js';
export type { VoiceStreamOptions, VoiceStreamServer, VoiceStreamServerOptions } from './voice-stream.js';
export { VoiceCall } from './voice-call.js';
export type { VoiceCallOptions, VoiceHandshake, VoiceSocket, VoiceSocketData, VoiceStreamFrame } from './voice-call.js';
export { PcmDecoder, encodePcm16le, VOICE_SAMPLE_RATE } from './pcm.js';
export { toWav, writeWav, wavHeader } from './wav.js';
export type { WavOptions } from './wav.js';
