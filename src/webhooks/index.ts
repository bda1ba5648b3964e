/**
 * `mobile-partner-sdk/webhooks`: the receiving side only — signatures, typed events, framework
 * adapters, deduplication and the live voice stream. Pulls in no client code.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createNodeHandler } from 'mobile-partner-sdk/webhooks';
 *
 * const handler = createNodeHandler({
 *   secret: process.env.WEBHOOK_SIGNING_SECRET ?? '',
 *   onEvent: (event) => console.log(event.type, event.data),
 * });
 * createServer(handler).listen(3000);
 * ```
 *
 * @packageDocumentation
 * @module mobile-partner-sdk/webhooks
 */
// Everything that runs on web standards alone, as the workerd and edge-light builds get it.
export * from './web.js';
// And what needs Node's modules: the synchronous checks, signing, the Node and Express adapters,
// the live voice stream and the audio helpers.
export { verifySignature } from './verify.js';
import { compileObjects } from '../core/compiled-objects.js';

// The event bodies' object schemas parse with zod's compiled parser here, as the client's do.
compileObjects();
export { signPayload } from './sign.js';
export type { SignOptions } from './sign.js';
export { constructEvent } from './events.js';
export { createNodeHandler } from './adapters/node.js';
export { webhookMiddleware, RAW_BODY_MISSING_MESSAGE } from './adapters/express.js';
export type { ExpressLikeRequest } from './adapters/express.js';
export { VoiceStreamReceiver, createVoiceStreamServer } from './voice-stream.js';
export type { VoiceStreamOptions, VoiceStreamServer, VoiceStreamServerOptions } from './voice-stream.js';
export { VoiceCall } from './voice-call.js';
export type { VoiceCallOptions, VoiceHandshake, VoiceSocket, VoiceSocketData, VoiceStreamFrame } from './voice-call.js';
export { PcmDecoder, encodePcm16le, VOICE_SAMPLE_RATE } from './pcm.js';
export { toWav, writeWav, wavHeader } from './wav.js';
export type { WavOptions } from './wav.js';
