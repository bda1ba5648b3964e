import { describe, expectTypeOf, it } from 'vitest';
import type { SmsEvent, SmsEventData, WebhookEvent } from '../../src/webhooks/index.js';

declare const event: WebhookEvent;

describe('webhook event types', () => {
  it('types the fields of an SMS body as optional strings of an open object', () => {
    if (event.type === 'sms') {
      expectTypeOf(event).toEqualTypeOf<SmsEvent>();
      expectTypeOf(event.data).toEqualTypeOf<SmsEventData>();
      expectTypeOf(event.data.text).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.data.from).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.data.receivedAt).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.data['carrierSpecific']).toEqualTypeOf<unknown>();
      // @ts-expect-error text is a string when present, never a number
      const length: number = event.data.text;
      void length;
    }
  });
});
