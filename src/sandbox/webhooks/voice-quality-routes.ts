import { z } from 'zod';
import type { SandboxApp } from '../context.js';
import type { WebhookDomain } from './domain.js';
import { controlJson, parseControlBody } from '../control-body.js';
import { closedObject } from '../closed-object.js';
import { voiceQualityWebhookToWire, type VoiceQuality } from './voice-quality.js';

export const addVoiceQualityWebhookSchema = closedObject({
  url: z.url({ protocol: /^https?$/, error: 'url must be an absolute http or https URL' }),
  description: z.string().optional(),
});

export const voiceQualityTestSchema = closedObject({
  iccid: z.string({ error: 'iccid is required' }).min(1, 'iccid is required'),
  mos: z.number().min(1).max(5).optional(),
});

export function registerVoiceQualityRoutes(app: SandboxApp, domain: WebhookDomain, voiceQuality: VoiceQuality): void {
  const { ctx } = domain;

  // spec part 4: a page, readable with any key tier.
  app.get('/api/v1.1/voice-quality/webhooks', (c) => ctx.paginate(c, voiceQuality.webhooks.map(voiceQualityWebhookToWire)));

  // Control API: the spec shows no way to create voice quality webhooks; this answer is where a
  // receiver learns its signing secret.
  app.post('/_sandbox/voice-quality/webhooks', (c) => {
    const input = parseControlBody(c, addVoiceQualityWebhookSchema);
    if (input instanceof Response) return input;
    const webhook = voiceQuality.add(input.url, input.description ?? '');
    return controlJson({ ...voiceQualityWebhookToWire(webhook), signingSecret: webhook.signingSecret }, 201);
  });

  app.get('/_sandbox/voice-quality/webhooks', () =>
    controlJson({
      webhooks: voiceQuality.webhooks.map((w) => ({ ...voiceQualityWebhookToWire(w), signingSecret: w.signingSecret })),
    }),
  );

  app.get('/_sandbox/voice-quality/deliveries', () => controlJson({ deliveries: voiceQuality.deliveries.map((d) => ({ ...d })) }));

  app.post('/_sandbox/voice-quality/tests', (c) => {
    const input = parseControlBody(c, voiceQualityTestSchema);
    if (input instanceof Response) return input;
    // spec part 6: the test is run by a line of the account.
    const sim = ctx.state.sims.get(input.iccid);
    if (!sim) return controlJson({ error: 'iccid is not a SIM of the account' }, 404);
    const event = voiceQuality.report(sim.iccid, sim.phoneNumber, input.mos);
    const deliveries = voiceQuality.emit(event);
    ctx.counters.bump('voiceQuality.tests');
    return controlJson({ event, deliveries: deliveries.map((d) => ({ deliveryId: d.deliveryId, webhookId: d.webhookId })) }, 202);
  });
}
