import { describe, expectTypeOf, it } from 'vitest';
import {
  constructEvent,
  constructEventAsync,
  createFetchHandler,
  createNodeHandler,
  verifySignature,
  verifySignatureAsync,
  webhookMiddleware,
  type SmsEvent,
  type SmsEventData,
  type VerifiedSignature,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';

declare const event: WebhookEvent;

describe('webhook event types', () => {
  it('types the fields of an SMS body as optional strings, exactly', () => {
    if (event.type === 'sms') {
      expectTypeOf(event).toEqualTypeOf<SmsEvent>();
      expectTypeOf(event.data).toEqualTypeOf<SmsEventData>();
      expectTypeOf(event.data.text).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.data.from).toEqualTypeOf<string | undefined>();
      expectTypeOf(event.data.receivedAt).toEqualTypeOf<string | undefined>();
      // @ts-expect-error a field the type does not name does not compile (it is kept at runtime)
      void event.data.carrierSpecific;
      if ('carrierSpecific' in event.data) expectTypeOf(event.data.carrierSpecific).toEqualTypeOf<unknown>();
      // @ts-expect-error text is a string when present, never a number
      const length: number = event.data.text;
      void length;
    }
  });
});

declare const rawBody: string;
declare const headers: Headers;
declare const names: string[];
const onEvent = (): void => undefined;

describe('webhook secret types', () => {
  it('lets verifySignature and constructEvent take a string, an array or a synchronous function', () => {
    verifySignature(rawBody, 't=1,v1=00', 'whsec_a');
    verifySignature(rawBody, 't=1,v1=00', names);
    verifySignature(rawBody, 't=1,v1=00', ['whsec_a', 'whsec_b'] as const);
    verifySignature(rawBody, 't=1,v1=00', () => 'whsec_a');
    constructEvent(rawBody, headers, () => names);
    // @ts-expect-error verifySignature is synchronous: an async secret function needs verifySignatureAsync
    verifySignature(rawBody, 't=1,v1=00', async () => 'whsec_a');
    // @ts-expect-error constructEvent is synchronous too
    constructEvent(rawBody, headers, () => Promise.resolve(names));
    // @ts-expect-error a secret is text
    verifySignature(rawBody, 't=1,v1=00', 42);
  });

  it('lets the adapters and the async forms take a function returning a promise', () => {
    const fromVault = async (): Promise<string[]> => names;
    createNodeHandler({ secret: fromVault, onEvent });
    webhookMiddleware({ secret: () => 'whsec_a', onEvent });
    createFetchHandler({ secret: names, onEvent });
    expectTypeOf<WebhookHandlerOptions['secret']>().toEqualTypeOf<
      string | readonly string[] | (() => string | readonly string[] | PromiseLike<string | readonly string[]>)
    >();
    expectTypeOf(verifySignatureAsync(rawBody, null, fromVault)).toEqualTypeOf<Promise<VerifiedSignature>>();
    expectTypeOf(constructEventAsync(rawBody, headers, fromVault)).toEqualTypeOf<Promise<WebhookEvent>>();
    // @ts-expect-error a function must return the secret, not take arguments
    createNodeHandler({ secret: (name: string) => name, onEvent });
  });
});
