import { runAttemptSeries } from './attempts.js';
import type { WebhookDomain } from './domain.js';
import { VOICE_QUALITY_RETRY_DELAYS_MS } from './retry-policy.js';
import { sendOnce } from './send.js';
import { newSigningSecret, signedHeaders } from './signing.js';

/** A voice quality webhook (spec part 2); the signing secret stays inside the sandbox's control API. */
export interface VoiceQualityWebhook {
  id: string;
  url: string;
  description: string;
  events: string[];
  status: 'active';
  createdAt: string;
  updatedAt: string;
  signingSecret: string;
}

type VoiceQualityDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** What the control API shows of one voice.test.completed delivery, for tests and demos. */
export interface VoiceQualityDelivery {
  deliveryId: string;
  webhookId: string;
  eventId: string;
  status: VoiceQualityDeliveryStatus;
  attempts: number;
  responseCode: number;
}

/** The scored report; the spec shows only `id` (part 6), the rest is the sandbox's choice. */
/** The `voice.test.completed` report the sandbox sends (the spec shows only `id`; these are the sandbox's fields). */
export interface VoiceTestCompletedBody {
  id: string;
  event: 'voice.test.completed';
  iccid: string;
  phoneNumber: string;
  testNumber: string;
  durationSeconds: number;
  mos: number;
  jitterMs: number;
  latencyMs: number;
  packetLossPercent: number;
  result: 'PASSED' | 'FAILED';
  startedAt: string;
  completedAt: string;
}

/** MOS at or above this passes. */
const PASSING_MOS = 3.5;
const EVENT = 'voice.test.completed';

export function voiceQualityWebhookToWire(webhook: VoiceQualityWebhook): Record<string, unknown> {
  const { signingSecret: _secret, ...wire } = webhook;
  return { ...wire, events: [...wire.events] };
}

export class VoiceQuality {
  readonly #domain: WebhookDomain;
  readonly webhooks: VoiceQualityWebhook[] = [];
  readonly deliveries: VoiceQualityDelivery[] = [];

  constructor(domain: WebhookDomain) {
    this.#domain = domain;
    this.seed();
  }

  /** Two seeded webhooks on reserved `.example` hosts: listed, never actually reached. */
  seed(): void {
    this.webhooks.length = 0;
    this.deliveries.length = 0;
    this.add(`https://voice-quality.partner.example/hooks/${this.#domain.ctx.rng.hex(8)}`, 'Voice quality reports');
    this.add(`https://noc.partner.example/voice/${this.#domain.ctx.rng.hex(8)}`, 'NOC dashboard');
  }

  add(url: string, description: string): VoiceQualityWebhook {
    const { ctx } = this.#domain;
    const now = ctx.nowIso();
    const webhook: VoiceQualityWebhook = {
      id: ctx.newId('vqwh_', 24),
      url,
      description,
      events: [EVENT],
      status: 'active',
      createdAt: now,
      updatedAt: now,
      signingSecret: newSigningSecret((n) => ctx.rng.hex(n)),
    };
    this.webhooks.push(webhook);
    return webhook;
  }

  /** Emits voice.test.completed to every active webhook (spec part 6), each on its own schedule. */
  emit(body: VoiceTestCompletedBody): VoiceQualityDelivery[] {
    const raw = JSON.stringify(body);
    return this.webhooks
      .filter((w) => w.status === 'active' && w.events.includes(EVENT))
      .map((webhook) => {
        const delivery: VoiceQualityDelivery = {
          deliveryId: this.#domain.ctx.newId('vqdl_', 24),
          webhookId: webhook.id,
          eventId: body.id,
          status: 'PENDING',
          attempts: 0,
          responseCode: 0,
        };
        this.deliveries.push(delivery);
        void this.#domain.inFlight.track(this.#deliver(webhook, delivery, raw));
        return delivery;
      });
  }

  async #deliver(webhook: VoiceQualityWebhook, delivery: VoiceQualityDelivery, raw: string): Promise<void> {
    const domain = this.#domain;
    const result = await runAttemptSeries({
      retryDelaysMs: VOICE_QUALITY_RETRY_DELAYS_MS,
      attempt: () => {
        domain.ctx.counters.bump('voiceQuality.attempts');
        return sendOnce({
          fetch: domain.fetch,
          url: webhook.url,
          body: raw,
          headers: {
            'user-agent': 'partner-sandbox',
            'x-service-event': EVENT,
            // Same id on every attempt, so a receiver can tell a retry from a new delivery.
            'x-service-delivery': delivery.deliveryId,
            ...signedHeaders(raw, webhook.signingSecret, Math.floor(domain.scheduler.now() / 1000)),
          },
          // spec part 6, voice.test.completed rule 3: a 2xx within 10 s (real time; see SandboxOptions.deliveryTimeoutMs)
          timeoutMs: domain.ctx.options.deliveryTimeoutMs,
          signal: domain.inFlight.signal,
        });
      },
      onAttempt: (attempt, outcome) => {
        delivery.attempts = attempt;
        delivery.responseCode = outcome.responseCode;
      },
      // spec part 6: 410 Gone stops retries.
      isFinal: (outcome) => outcome.responseCode === 410,
      scheduler: domain.scheduler,
      signal: domain.inFlight.signal,
    });
    delivery.status = result.ok ? 'DELIVERED' : 'FAILED';
  }

  /** A scored report for a line; the score comes from the seeded dice unless `mos` is given. */
  report(iccid: string, phoneNumber: string, mos: number | undefined): VoiceTestCompletedBody {
    const { ctx } = this.#domain;
    const score = mos ?? Math.round((2.5 + ctx.rng.next() * 2) * 100) / 100;
    const durationSeconds = 20 + ctx.rng.int(20);
    const completedMs = ctx.clock.nowMs();
    return {
      id: ctx.newId('vqt_', 24),
      event: EVENT,
      iccid,
      phoneNumber,
      testNumber: '+18005550100',
      durationSeconds,
      mos: score,
      jitterMs: 5 + ctx.rng.int(40),
      latencyMs: 40 + ctx.rng.int(160),
      packetLossPercent: Math.round(ctx.rng.next() * 300) / 100,
      result: score >= PASSING_MOS ? 'PASSED' : 'FAILED',
      startedAt: new Date(completedMs - durationSeconds * 1000).toISOString(),
      completedAt: new Date(completedMs).toISOString(),
    };
  }
}
