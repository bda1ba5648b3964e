/**
 * The sandbox's webhook domain: operator webhook registrations and their signed deliveries,
 * voice quality webhooks and the live voice stream (spec parts 2, 3, 4, 6, 8), plus the control
 * routes that trigger inbound events. Its state lives here, per sandbox, not in the shared state.
 */
import type { SandboxPlugin } from '../context.js';
import { registerDeliveryRoutes } from './delivery-routes.js';
import { createWebhookDomain } from './domain.js';
import { registerEventRoutes } from './event-routes.js';
import { registerRegistrationRoutes } from './registration-routes.js';
import { VoiceQuality } from './voice-quality.js';
import { registerVoiceQualityRoutes } from './voice-quality-routes.js';
import { registerVoiceStreamRoutes } from './voice-stream-routes.js';
import { attachWebhookDomain } from '../inspector/hub.js';

export const registerWebhookRoutes: SandboxPlugin = (app, ctx) => {
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
};
