import * as z from 'zod';
import type { SandboxApp } from '../context.js';
import type { WebhookDomain } from './domain.js';
import { controlJson, parseControlBody } from '../control-body.js';
import { closedObject } from '../closed-object.js';
import { voiceQualityWebhookToWire, type VoiceQuality, type VoiceTestCompletedBody } from './voice-quality.js';

const addVoiceQualityWebhookSchema = closedObject({
  url: z.url({ protocol: /^https?$/, error: 'url must be an absolute http or https URL' }),
  description: z.string().optional(),
});

export const voiceQualityTestSchema = closedObject({
  iccid: z.string({ error: 'iccid is required' }).min(1, 'iccid is required'),
  mos: z.number().min(1).max(5).optional(),
}) satisfies z.ZodType<unknown, VoiceQualityTestInput>;

/** A voice-quality test for `sandbox.runVoiceQualityTest()` (and POST /_sandbox/voice-quality/tests). */
export interface VoiceQualityTestInput {
  /** The line that calls the test number; must be on the account. */
  iccid: string;
  /** The mean opinion score to report, 1 to 5; default a seeded random one. */
  mos?: number | undefined;
}

export function registerVoiceQualityRoutes(app: SandboxApp, domain: WebhookDomain, voiceQuality: VoiceQuality): void {
  const { ctx } = domain;

  // spec part 4: a page, readable with any key tier.
  app.get('/api/v1.1/voice-quality/webhooks', (c) => ctx.paginate(c, voiceQuality.webhooks, voiceQualityWebhookToWire));

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
    const result = runVoiceQualityTest(domain, voiceQuality, input);
    return result ? controlJson(result, 202) : controlJson({ error: 'iccid is not a SIM of the account' }, 404);
  });
}

/** What POST /_sandbox/voice-quality/tests answers and `sandbox.runVoiceQualityTest()` returns. */
export interface VoiceQualityTestResult {
  /** The report delivered (signed) to each active voice-quality webhook. */
  event: VoiceTestCompletedBody;
  /** One per active voice-quality webhook. */
  deliveries: Array<{ deliveryId: string; webhookId: string }>;
}

/** A line of the account calls the test number; the report goes to every active webhook. Undefined for an unknown ICCID. */
export function runVoiceQualityTest(
  domain: WebhookDomain,
  voiceQuality: VoiceQuality,
  input: z.output<typeof voiceQualityTestSchema>,
): VoiceQualityTestResult | undefined {
  // spec part 6: the test is run by a line of the account.
  const sim = domain.ctx.state.sims.get(input.iccid);
  if (!sim) return undefined;
  const event = voiceQuality.report(sim.iccid, sim.phoneNumber, input.mos);
  const deliveries = voiceQuality.emit(event);
  domain.ctx.counters.bump('voiceQuality.tests');
  return { event, deliveries: deliveries.map((d) => ({ deliveryId: d.deliveryId, webhookId: d.webhookId })) };
}
