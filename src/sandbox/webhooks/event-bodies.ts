/**
 * Bodies of the events the sandbox delivers. The spec does not show them (part 6); these shapes
 * are the sandbox's documented choice, with an `event` name first so receivers can branch on it.
 */
import type { RegistrationRecord } from './registrations.js';

/** The body of the sandbox's inbound SMS deliveries (not shown in the spec: the sandbox's choice). */
export interface SmsEventBody {
  event: 'sms.received';
  messageId: string;
  operator: string;
  network: string;
  from: string;
  to: string;
  text: string;
  receivedAt: string;
}

/** The body of the sandbox's inbound voice deliveries (not shown in the spec: the sandbox's choice). */
export interface VoiceEventBody {
  event: 'voice.call';
  kind: 'incoming' | 'completed' | 'missed';
  callId: string;
  operator: string;
  network: string;
  from: string;
  to: string;
  /** 0 unless kind is completed. */
  durationSeconds: number;
  occurredAt: string;
}

export interface TestEventBody {
  event: 'webhook.test';
  webhookId: string;
  operator: string;
  network: string;
  sentAt: string;
}

export function testEventBody(registration: RegistrationRecord, sentAt: string): TestEventBody {
  return {
    event: 'webhook.test',
    webhookId: registration.id,
    operator: registration.operator,
    network: registration.network,
    sentAt,
  };
}
