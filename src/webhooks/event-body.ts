import { WebhookSignatureError } from '../core/errors.js';
import { readHeader, DELIVERY_HEADER, EVENT_HEADER, type DeliveryHeaders } from './headers.js';
import {
  classifyEvent,
  jsonObjectSchema,
  smsEventSchema,
  voiceTestCompletedDataSchema,
  type DeliveryInfo,
  type WebhookEvent,
} from './event-types.js';
import type { RawBody } from './raw-body.js';
import { VERIFY_OPTION_NAMES, type VerifyOptions } from './signature-check.js';
import type { OptionNames } from '../shared/option-names.js';

/** Options of {@link constructEvent} and {@link constructEventAsync}: the verification's, and how to read the body. */
export interface ConstructEventOptions extends VerifyOptions {
  /**
   * What a delivery that names no known event is (for a receiver that only serves `messageUrl`
   * or `voiceUrl`); without it such a delivery is `unknown`.
   */
  fallbackType?: 'sms' | 'voice';
}

/** The names {@link ConstructEventOptions} takes, refused otherwise (ConfigurationError). */
export const CONSTRUCT_EVENT_OPTION_NAMES = { ...VERIFY_OPTION_NAMES, fallbackType: true } as const satisfies OptionNames<ConstructEventOptions>;

const decoder = new TextDecoder('utf-8', { fatal: true });

function invalidPayload(message: string): never {
  throw new WebhookSignatureError('invalid_payload', message);
}

function parseJson(bytes: RawBody): unknown {
  let text: string;
  try {
    text = typeof bytes === 'string' ? bytes : decoder.decode(bytes);
  } catch {
    return invalidPayload('the signed body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return invalidPayload('the signed body is not valid JSON');
  }
}

/**
 * The typed event of a delivery whose signature is verified, shared by `constructEvent` and
 * `constructEventAsync`: parses the JSON body and sorts it with {@link classifyEvent}. A body
 * that is authentic but not JSON, or not of its event's shape, throws `WebhookSignatureError`
 * with reason `invalid_payload`: one error class covers every reason to refuse a delivery.
 */
export function eventFromBody(rawBody: RawBody, headers: DeliveryHeaders, timestamp: number, options: ConstructEventOptions): WebhookEvent {
  const body = parseJson(rawBody);
  const eventHeader = readHeader(headers, EVENT_HEADER);
  const delivery: DeliveryInfo = { deliveryId: readHeader(headers, DELIVERY_HEADER), eventHeader, timestamp };
  const { type, name } = classifyEvent(body, eventHeader, options.fallbackType);

  switch (type) {
    case 'voice.test.completed': {
      const parsed = voiceTestCompletedDataSchema().safeParse(body);
      if (!parsed.success) invalidPayload('a voice.test.completed event must be a JSON object with a string id');
      return { type, name, id: parsed.data.id, data: parsed.data, delivery };
    }
    case 'sms': {
      const parsed = smsEventSchema().safeParse(body);
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path[0];
        invalidPayload(typeof field === 'string' ? `the "${field}" field of an sms event must be a string` : 'an sms event must be a JSON object');
      }
      return { type, name, data: parsed.data, delivery };
    }
    case 'webhook.test':
    case 'voice': {
      const parsed = jsonObjectSchema().safeParse(body);
      if (!parsed.success) invalidPayload(`a ${type} event must be a JSON object`);
      return { type, name, data: parsed.data, delivery };
    }
    case 'unknown':
      return { type, name, data: body, delivery };
    default: {
      const unreachable: never = type;
      return unreachable;
    }
  }
}
