/**
 * `mobile-partner-sdk/sandbox`: a stateful local emulator of the whole Partner API over real
 * HTTP — seeded data, asynchronous transactions, rate limits, idempotency, signed webhook
 * deliveries and forced faults — for development and tests. Also `npx partner-sandbox`.
 *
 * @example
 * ```ts
 * import { PartnerClient } from 'mobile-partner-sdk';
 * import { startSandbox } from 'mobile-partner-sdk/sandbox';
 *
 * const sandbox = await startSandbox({ seed: 7 });
 * const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
 * console.log((await client.sims.list()).data.length);
 * await client.close();
 * await sandbox.close();
 * ```
 *
 * @packageDocumentation
 * @module mobile-partner-sdk/sandbox
 */
export { createSandbox } from './handler.js';
export type { HandleInit, Sandbox } from './handler.js';
export { startSandbox } from './server.js';
export type { SandboxHandle } from './server.js';
export type { SandboxAccount, SandboxCredentials, SandboxFaults, SandboxLimits, SandboxOptions, StartSandboxOptions } from './options.js';
export type { SandboxFixtures } from './state/fixtures.js';
export type {
  ForceRule,
  ForceRuleInput,
  SandboxControlMethods,
  SandboxTime,
  SmsEventInput,
  SmsEventResult,
  VoiceEventInput,
  VoiceEventResult,
  VoiceQualityTestInput,
  VoiceQualityTestResult,
} from './control-methods.js';
export type { EventDelivery } from './webhooks/event-routes.js';
export type { SmsEventBody, VoiceEventBody } from './webhooks/event-bodies.js';
export type { VoiceTestCompletedBody } from './webhooks/voice-quality.js';
export type { LoggedRateLimit, LoggedRequest } from './middleware/request-log.js';
export type { KeyTier, SandboxContext, SandboxRequestContext, SandboxStatusCode } from './context.js';
