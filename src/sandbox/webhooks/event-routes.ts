import * as z from 'zod';
import type { SandboxApp } from '../context.js';
import { E164_PATTERN as E164 } from '../../shared/e164.js';
import type { WebhookDomain } from './domain.js';
import type { SmsEventBody, VoiceEventBody } from './event-bodies.js';
import { startDelivery } from './operator-deliveries.js';
import type { RegistrationRecord } from './registrations.js';
import type { WebhookUrlName } from './registration-schema.js';
import { controlJson, parseControlBody } from '../control-body.js';
import { closedObject } from '../closed-object.js';

const e164 = z.string().regex(E164, 'must be an E.164 number');

export const smsEventControlSchema = closedObject({
  operator: z.string().min(1),
  network: z.string().min(1),
  from: e164.optional(),
  to: e164.optional(),
  text: z.string().optional(),
}) satisfies z.ZodType<unknown, SmsEventInput>;

export const voiceEventControlSchema = closedObject({
  operator: z.string().min(1),
  network: z.string().min(1),
  from: e164.optional(),
  to: e164.optional(),
  kind: z.enum(['incoming', 'completed', 'missed']).optional(),
  durationSeconds: z.number().int().min(0).optional(),
}) satisfies z.ZodType<unknown, VoiceEventInput>;

/** spec part 6, operator events rule 1: sms goes to messageUrl and callbackMessageUrl, voice to voiceUrl and callbackVoiceUrl. */
const TARGETS = {
  sms: ['messageUrl', 'callbackMessageUrl'],
  voice: ['voiceUrl', 'callbackVoiceUrl'],
} as const satisfies Record<string, readonly WebhookUrlName[]>;

type Channel = keyof typeof TARGETS;

function subscribers(domain: WebhookDomain, operator: string, network: string, channel: Channel): RegistrationRecord[] {
  return domain.registrations
    .list()
    .filter((r) => r.operator === operator && r.network === network && r.status === 'active')
    .filter((r) => r.eventType === channel || r.eventType === 'both');
}

/** Delivers one event to every active subscriber's URLs of that channel; one delivery per URL. */
function fanOut(domain: WebhookDomain, channel: Channel, body: SmsEventBody | VoiceEventBody): EventDelivery[] {
  const raw = JSON.stringify(body);
  return subscribers(domain, body.operator, body.network, channel).flatMap((registration) =>
    TARGETS[channel].flatMap((name) => {
      const url = registration.webhookUrls[name];
      if (url === undefined) return [];
      const record = startDelivery(domain, registration, { url, eventType: body.event, body: raw });
      return [{ deliveryId: record.deliveryId, webhookId: registration.id, target: name }];
    }),
  );
}

/** A line of that operator and network, to stand in for an omitted `to`. */
function lineOf(domain: WebhookDomain, operator: string, network: string, voice: boolean): string | undefined {
  for (const sim of domain.ctx.state.sims.values()) {
    if (sim.operator === operator && sim.network === network && (!voice || sim.voiceEnabled)) return sim.phoneNumber;
  }
  return undefined;
}

function randomNumber(domain: WebhookDomain): string {
  return `+1555${domain.ctx.rng.digits(7)}`;
}

/** An inbound SMS for `sandbox.sendSmsEvent()` (and POST /_sandbox/events/sms). */
export interface SmsEventInput {
  /** The operator of the registrations to deliver to. */
  operator: string;
  /** The network of the registrations to deliver to. */
  network: string;
  /** Sender, E.164; default a random number. */
  from?: string | undefined;
  /** Receiving line, E.164; default a line of that operator and network. */
  to?: string | undefined;
  /** The message text. */
  text?: string | undefined;
}

/** An inbound voice event for `sandbox.sendVoiceEvent()` (and POST /_sandbox/events/voice). */
export interface VoiceEventInput {
  /** The operator of the registrations to deliver to. */
  operator: string;
  /** The network of the registrations to deliver to. */
  network: string;
  /** Caller, E.164; default a random number. */
  from?: string | undefined;
  /** Called line, E.164; default a line of that operator and network. */
  to?: string | undefined;
  /** What happened to the call; default `'incoming'`. */
  kind?: 'incoming' | 'completed' | 'missed' | undefined;
  /** Length of a completed call. */
  durationSeconds?: number | undefined;
}

/** One delivery an event started: to which registration and which of its URLs. */
export interface EventDelivery {
  /** The delivery's id in the delivery log. */
  deliveryId: string;
  /** The registration it goes to. */
  webhookId: string;
  /** Which of the registration's URLs. */
  target: WebhookUrlName;
}

/** What POST /_sandbox/events/sms answers and `sandbox.sendSmsEvent()` returns. */
export interface SmsEventResult {
  /** The body delivered (signed) to each subscriber. */
  event: SmsEventBody;
  /** One per subscribed URL. */
  deliveries: EventDelivery[];
}

/** What POST /_sandbox/events/voice answers and `sandbox.sendVoiceEvent()` returns. */
export interface VoiceEventResult {
  /** The body delivered (signed) to each subscriber. */
  event: VoiceEventBody;
  /** One per subscribed URL. */
  deliveries: EventDelivery[];
  /** Set when nothing was delivered because the line's plan has no voice. */
  skipped?: string;
}

/** An inbound SMS on an operator and network, delivered to its subscribers. */
export function sendSmsEvent(domain: WebhookDomain, input: z.output<typeof smsEventControlSchema>): SmsEventResult {
  const { ctx } = domain;
  const body: SmsEventBody = {
    event: 'sms.received',
    messageId: ctx.newId('msg_', 24),
    operator: input.operator,
    network: input.network,
    from: input.from ?? randomNumber(domain),
    to: input.to ?? lineOf(domain, input.operator, input.network, false) ?? randomNumber(domain),
    text: input.text ?? 'Hello from the sandbox',
    receivedAt: ctx.nowIso(),
  };
  return { event: body, deliveries: fanOut(domain, 'sms', body) };
}

/** An inbound voice event on an operator and network, delivered to its subscribers. */
export function sendVoiceEvent(domain: WebhookDomain, input: z.output<typeof voiceEventControlSchema>): VoiceEventResult {
  const { ctx } = domain;
  const kind = input.kind ?? 'incoming';
  const body: VoiceEventBody = {
    event: 'voice.call',
    kind,
    callId: ctx.newId('call_', 24),
    operator: input.operator,
    network: input.network,
    from: input.from ?? randomNumber(domain),
    to: input.to ?? lineOf(domain, input.operator, input.network, true) ?? randomNumber(domain),
    durationSeconds: kind === 'completed' ? (input.durationSeconds ?? 60) : 0,
    occurredAt: ctx.nowIso(),
  };
  // spec part 4 registration rule 1: voice events arrive only for lines whose plan includes voice.
  const line = ctx.simByNumber(body.to);
  if (line && !line.voiceEnabled) return { event: body, deliveries: [], skipped: 'the line has no voice support' };
  return { event: body, deliveries: fanOut(domain, 'voice', body) };
}

export function registerEventRoutes(app: SandboxApp, domain: WebhookDomain): void {
  app.post('/_sandbox/events/sms', (c) => {
    const input = parseControlBody(c, smsEventControlSchema);
    if (input instanceof Response) return input;
    return controlJson(sendSmsEvent(domain, input), 202);
  });

  app.post('/_sandbox/events/voice', (c) => {
    const input = parseControlBody(c, voiceEventControlSchema);
    if (input instanceof Response) return input;
    return controlJson(sendVoiceEvent(domain, input), 202);
  });
}
