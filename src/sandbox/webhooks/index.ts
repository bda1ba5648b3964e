/**
 * The sandbox's webhook domain: operator webhook registrations and their signed deliveries,
 * voice quality webhooks and the live voice stream (spec parts 2, 3, 4, 6, 8), plus the control
 * routes that trigger inbound events. Its state lives here, per sandbox, not in the shared state.
 */
import type { z } from 'zod';
import type { SandboxApp, SandboxContext } from '../context.js';
import { registerDeliveryRoutes } from './delivery-routes.js';
import { createWebhookDomain } from './domain.js';
import {
  registerEventRoutes,
  sendSmsEvent,
  sendVoiceEvent,
  type SmsEventResult,
  type VoiceEventResult,
  type smsEventControlSchema,
  type voiceEventControlSchema,
} from './event-routes.js';
import { registerRegistrationRoutes } from './registration-routes.js';
import { VoiceQuality } from './voice-quality.js';
import { registerVoiceQualityRoutes, runVoiceQualityTest, type VoiceQualityTestResult, type voiceQualityTestSchema } from './voice-quality-routes.js';
import { registerVoiceStreamRoutes } from './voice-stream-routes.js';
import { attachWebhookDomain } from '../inspector/hub.js';

/** The webhook domain's control operations, for the in-process methods of the sandbox object. */
export interface WebhookControls {
  sendSmsEvent(input: z.output<typeof smsEventControlSchema>): SmsEventResult;
  sendVoiceEvent(input: z.output<typeof voiceEventControlSchema>): VoiceEventResult;
  runVoiceQualityTest(input: z.output<typeof voiceQualityTestSchema>): VoiceQualityTestResult | undefined;
}

export function registerWebhooks(app: SandboxApp, ctx: SandboxContext): WebhookControls {
  const domain = createWebhookDomain(ctx);
  attachWebhookDomain(domain);
  const voiceQuality = new VoiceQuality(domain);
  registerRegistrationRoutes(app, domain);
  registerDeliveryRoutes(app, domain);
  registerEventRoutes(app, domain);
  registerVoiceQualityRoutes(app, domain, voiceQuality);
  registerVoiceStreamRoutes(app, domain);
  ctx.onReset(() => {
    domain.inFlight.restart();
    domain.registrations.clear();
    domain.deliveries.clear();
    voiceQuality.seed();
  });
  ctx.onClose(() => domain.inFlight.dispose());
  return {
    sendSmsEvent: (input) => sendSmsEvent(domain, input),
    sendVoiceEvent: (input) => sendVoiceEvent(domain, input),
    runVoiceQualityTest: (input) => runVoiceQualityTest(domain, voiceQuality, input),
  };
}
