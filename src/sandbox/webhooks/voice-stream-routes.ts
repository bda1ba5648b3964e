import * as z from 'zod';
import type { SandboxApp } from '../context.js';
import { E164_PATTERN as E164 } from '../../shared/e164.js';
import type { WebhookDomain } from './domain.js';
import { credentialHeaders } from './registrations.js';
import { controlJson, parseControlBody } from '../control-body.js';
import { closedObject } from '../closed-object.js';
import { SAMPLE_RATE, FRAME_MS, streamCall, type StreamHandshake } from './voice-stream.js';

const voiceStreamControlSchema = closedObject({
  operator: z.string().min(1),
  network: z.string().min(1),
  from: z.string().regex(E164, 'must be an E.164 number').optional(),
  to: z.string().regex(E164, 'must be an E.164 number').optional(),
  durationMs: z.number().int().min(0).max(600_000).optional(),
  toneHz: z.number().min(1).max(3999).optional(),
});

/**
 * Control API: a live call starts on an operator and network (spec part 4 registration rule 2).
 * Answers once every stream has ended, with what was sent, so tests can count samples.
 */
export function registerVoiceStreamRoutes(app: SandboxApp, domain: WebhookDomain): void {
  const { ctx } = domain;
  app.post('/_sandbox/voice-stream', async (c) => {
    const input = parseControlBody(c, voiceStreamControlSchema);
    if (input instanceof Response) return input;
    const handshake: StreamHandshake = {
      event: 'stream.start',
      callId: ctx.newId('call_', 24),
      operator: input.operator,
      network: input.network,
      from: input.from ?? `+1555${ctx.rng.digits(7)}`,
      to: input.to ?? `+1555${ctx.rng.digits(7)}`,
      encoding: 'pcm_s16le',
      sampleRate: SAMPLE_RATE,
      channels: 1,
      frameDurationMs: FRAME_MS,
      startedAt: ctx.nowIso(),
    };
    const targets = domain.registrations
      .list()
      .filter((r) => r.operator === input.operator && r.network === input.network && r.status === 'active')
      .flatMap((r) => (r.webhookUrls.voiceStreamUrl ? [{ registration: r, url: r.webhookUrls.voiceStreamUrl }] : []));
    const streams = await Promise.all(
      targets.map(async ({ registration, url }) => {
        const result = await domain.inFlight.track(
          streamCall({
            url,
            headers: credentialHeaders(registration.authentication),
            handshake,
            durationMs: input.durationMs ?? 1000,
            toneHz: input.toneHz ?? 440,
            connectTimeoutMs: ctx.options.deliveryTimeoutMs,
            scheduler: domain.scheduler,
            signal: domain.inFlight.signal,
          }),
        );
        return { webhookId: registration.id, ...result };
      }),
    );
    ctx.counters.bump('voiceStream.calls');
    return controlJson({
      callId: handshake.callId,
      handshake,
      connections: streams.filter((s) => s.connected).length,
      samplesSent: streams.reduce((sum, s) => sum + s.samplesSent, 0),
      streams,
    });
  });
}
