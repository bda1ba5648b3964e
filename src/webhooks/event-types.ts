import * as z from 'zod/mini';
import { looseObject } from '../schemas/objects.js';
import { lazy } from '../schemas/lazy.js';

/**
 * What the service pushes, as far as the spec shows it (part 6). Bodies of operator SMS and
 * voice events, and every field of voice.test.completed but `id`, are "not shown": they are
 * open objects so that new fields pass through untouched.
 */
export const jsonObjectSchema = lazy(() => looseObject({}) satisfies z.ZodMiniType<JsonObject>);
/** A JSON object whose fields the spec does not show: every field passes through, untyped. */
export interface JsonObject {
  [field: string]: unknown;
}

/**
 * The event bodies are typed exactly (the fields they are known to hold, a misspelt one does not
 * compile) while every field received is kept in `data` at runtime; read one the type does not
 * name with `'field' in event.data` or through a cast. Where the spec does not show a field, the
 * ones the sandbox sends are named and typed `unknown`: any JSON value is accepted, narrow it.
 */

/**
 * spec part 6, voice.test.completed rule 2: receivers deduplicate on `id`. The web entry's public
 * `voiceTestCompletedSchema` (voice-test-completed-schema.ts) is the same check in zod's classic API.
 */
export const voiceTestCompletedDataSchema = lazy(
  () => looseObject({ id: z.string().check(z.minLength(1)) }) satisfies z.ZodMiniType<VoiceTestCompletedData>,
);
/** The body of a `voice.test.completed` delivery: its `id`; the report's fields are not shown in the spec (the sandbox's are named). */
export interface VoiceTestCompletedData {
  /** The event id; receivers deduplicate on it (spec part 6). */
  id: string;
  event?: unknown;
  iccid?: unknown;
  phoneNumber?: unknown;
  testNumber?: unknown;
  durationSeconds?: unknown;
  mos?: unknown;
  jitterMs?: unknown;
  latencyMs?: unknown;
  packetLossPercent?: unknown;
  result?: unknown;
  startedAt?: unknown;
  completedAt?: unknown;
}

/** The body of an inbound voice event: not shown in the spec (part 6); the fields the sandbox sends, any JSON value each. */
export interface VoiceEventData {
  /** The event name; the sandbox sends `voice.call`. */
  event?: unknown;
  /** The sandbox sends `incoming`, `completed` or `missed`. */
  kind?: unknown;
  callId?: unknown;
  operator?: unknown;
  network?: unknown;
  from?: unknown;
  to?: unknown;
  durationSeconds?: unknown;
  occurredAt?: unknown;
}

/** The body of the synthetic `webhook.test` delivery: not shown in the spec; the fields the sandbox sends, any JSON value each. */
export interface WebhookTestEventData {
  event?: unknown;
  webhookId?: unknown;
  operator?: unknown;
  network?: unknown;
  sentAt?: unknown;
}

/**
 * The body of an inbound SMS event. The spec does not show it (part 6), so these are the fields
 * the sandbox sends, each optional: a field the service adds is kept in `data` but not in the
 * type, one it leaves out is `undefined`. A field named here that arrives with another type is
 * refused (`invalid_payload`), so that the type never describes a value wrongly.
 */
export interface SmsEventData {
  /** The event name; the sandbox sends `sms.received`. */
  event?: string;
  messageId?: string;
  /** The operator and network of the webhook registration that received it. */
  operator?: string;
  network?: string;
  /** Sender, E.164. */
  from?: string;
  /** The line that received it, E.164. */
  to?: string;
  text?: string;
  /** ISO 8601. */
  receivedAt?: string;
}

/** The checks behind {@link SmsEventData}: its named fields are strings when present. */
export const smsEventSchema = lazy(
  () =>
    looseObject({
      event: z.optional(z.string()),
      messageId: z.optional(z.string()),
      operator: z.optional(z.string()),
      network: z.optional(z.string()),
      from: z.optional(z.string()),
      to: z.optional(z.string()),
      text: z.optional(z.string()),
      receivedAt: z.optional(z.string()),
    }) satisfies z.ZodMiniType<SmsEventData>,
);

/** The kinds an event is sorted into; `name` on the event keeps the exact name received. */
export type WebhookEventType = 'voice.test.completed' | 'webhook.test' | 'sms' | 'voice' | 'unknown';

/** Delivery metadata of the request that carried the event. */
export interface DeliveryInfo {
  /** `X-Service-Delivery` (sent on voice quality deliveries). */
  deliveryId: string | undefined;
  /** `X-Service-Event` as sent; not covered by the signature. */
  eventHeader: string | undefined;
  /** The signed timestamp, unix seconds. */
  timestamp: number;
}

/** What every {@link WebhookEvent} has: its kind, its name as received, its body and its delivery metadata. */
export interface WebhookEventBase<Type extends WebhookEventType, Data> {
  /** The kind: branch on it (`switch (event.type)`) to narrow `data`. */
  type: Type;
  /** The event name as received, e.g. `sms.received`; undefined when the delivery named none. */
  name: string | undefined;
  /** The whole parsed body. */
  data: Data;
  /** Headers of the delivery that carried it. */
  delivery: DeliveryInfo;
}

/** A voice-quality test report (spec part 6), deduplicated on `id`. */
export interface VoiceTestCompletedEvent extends WebhookEventBase<'voice.test.completed', VoiceTestCompletedData> {
  /** The event id to deduplicate on. */
  id: string;
}
/** The synthetic delivery of `client.webhooks.test()`. */
export type WebhookTestEvent = WebhookEventBase<'webhook.test', WebhookTestEventData>;
/** An inbound SMS event of an operator webhook; see {@link SmsEventData} for what its body is known to hold. */
export type SmsEvent = WebhookEventBase<'sms', SmsEventData>;
/** An inbound voice event of an operator webhook (body not shown in the spec). */
export type VoiceEvent = WebhookEventBase<'voice', VoiceEventData>;
/** A delivery whose name the SDK does not know yet; the body is kept as parsed. */
export type UnknownEvent = WebhookEventBase<'unknown', unknown>;

/**
 * A verified delivery, sorted by kind. Narrow it on `type`:
 *
 * @example
 * ```ts
 * import type { WebhookEvent } from 'mobile-partner-sdk';
 *
 * function handle(event: WebhookEvent): void {
 *   switch (event.type) {
 *     case 'sms': console.log(event.data.from, event.data.text); break;
 *     case 'voice.test.completed': console.log(event.id); break;
 *     case 'voice': case 'webhook.test': case 'unknown': break;
 *   }
 * }
 * ```
 */
export type WebhookEvent = VoiceTestCompletedEvent | WebhookTestEvent | SmsEvent | VoiceEvent | UnknownEvent;

/** Fields of the body that may carry the event name, in the order they are tried. */
const NAME_FIELDS = ['event', 'type', 'eventType'] as const;

/**
 * The one place that decides what an event is. The name comes from the signed body first
 * (`event`, then `type`, then `eventType`), and only then from the unsigned `X-Service-Event`
 * header; then:
 * - `voice.test.completed` and `webhook.test` are themselves;
 * - `sms` or `sms.*` is an inbound SMS event, `voice` or `voice.*` an inbound voice event;
 * - a delivery that names nothing, or names something else, takes `fallbackType` (a receiver
 *   mounted on `messageUrl` knows it gets SMS events) or else is `unknown`.
 */
export function classifyEvent(
  body: unknown,
  eventHeader: string | undefined,
  fallbackType: 'sms' | 'voice' | undefined,
): { type: WebhookEventType; name: string | undefined } {
  let name: string | undefined;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    for (const field of NAME_FIELDS) {
      const value = record[field];
      if (typeof value === 'string' && value !== '') {
        name = value;
        break;
      }
    }
  }
  name ??= eventHeader?.trim() || undefined;
  if (name === undefined) return { type: fallbackType ?? 'unknown', name };
  if (name === 'voice.test.completed' || name === 'webhook.test') return { type: name, name };
  if (name === 'sms' || name.startsWith('sms.')) return { type: 'sms', name };
  if (name === 'voice' || name.startsWith('voice.')) return { type: 'voice', name };
  return { type: fallbackType ?? 'unknown', name };
}
