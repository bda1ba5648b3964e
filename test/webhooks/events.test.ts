import { describe, expect, it } from 'vitest';
import { constructEvent, signPayload, WebhookSignatureError, type WebhookEvent } from '../../src/webhooks/index.js';

const secret = `whsec_${'cd'.repeat(32)}`;
const t = 1_750_000_000;
const now = new Date(t * 1000);

function signed(body: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-service-signature': signPayload(body, secret, { timestamp: t }), ...extra };
}

describe('constructEvent', () => {
  it('gives a typed voice.test.completed with its id, the whole body and the delivery metadata', () => {
    const body = JSON.stringify({ id: 'vqt_1', event: 'voice.test.completed', report: { mos: 4.1 } });
    const event = constructEvent(body, signed(body, { 'x-service-event': 'voice.test.completed', 'x-service-delivery': 'dlv_9' }), secret, { now });
    expect(event.type).toBe('voice.test.completed');
    if (event.type !== 'voice.test.completed') throw new Error('narrowing');
    expect(event.id).toBe('vqt_1');
    expect('report' in event.data && event.data.report).toEqual({ mos: 4.1 });
    expect(event.delivery).toEqual({ deliveryId: 'dlv_9', eventHeader: 'voice.test.completed', timestamp: t });
  });

  it('takes the event name from the X-Service-Event header when the body names none', () => {
    const body = JSON.stringify({ id: 'vqt_2', score: 3 });
    const event = constructEvent(body, signed(body, { 'X-Service-Event': 'voice.test.completed' }), secret, { now });
    expect(event).toMatchObject({ type: 'voice.test.completed', id: 'vqt_2', name: 'voice.test.completed' });
  });

  it('prefers the signed body over the unsigned header', () => {
    const body = JSON.stringify({ event: 'webhook.test' });
    const event = constructEvent(body, signed(body, { 'x-service-event': 'voice.test.completed' }), secret, { now });
    expect(event.type).toBe('webhook.test');
  });

  it.each([
    [{ event: 'webhook.test' }, 'webhook.test', 'webhook.test'],
    [{ type: 'sms.received', from: '+15550001', text: 'hi' }, 'sms', 'sms.received'],
    [{ eventType: 'sms', from: '+15550001' }, 'sms', 'sms'],
    [{ event: 'voice.inbound', callId: 'c1' }, 'voice', 'voice.inbound'],
    [{ event: 'something.new' }, 'unknown', 'something.new'],
    [{ text: 'no name at all' }, 'unknown', undefined],
    [[1, 2, 3], 'unknown', undefined],
  ])('sorts %j as %s', (payload, type, name) => {
    const body = JSON.stringify(payload);
    const event = constructEvent(body, signed(body), secret, { now });
    expect(event.type).toBe(type);
    expect(event.name).toBe(name);
    expect(event.data).toEqual(payload);
  });

  it('types the known fields of an SMS body and passes other fields through', () => {
    const payload = {
      event: 'sms.received',
      messageId: 'msg_1',
      from: '+15550001',
      to: '+15550002',
      text: 'hi',
      receivedAt: '2025-06-01T00:00:00.000Z',
      encoding: 'gsm7',
    };
    const body = JSON.stringify(payload);
    const event = constructEvent(body, signed(body), secret, { now });
    if (event.type !== 'sms') throw new Error('narrowing');
    expect(event.data).toEqual(payload);
    expect(event.data.text?.toUpperCase()).toBe('HI');
    expect('encoding' in event.data && event.data.encoding).toBe('gsm7');
  });

  it('accepts an SMS body without the fields the sandbox sends, and refuses one of them with another type, naming it', () => {
    const sparse = JSON.stringify({ event: 'sms.received' });
    const event = constructEvent(sparse, signed(sparse), secret, { now });
    expect(event.type === 'sms' && event.data.text).toBeUndefined();
    for (const [field, value] of [
      ['text', 42],
      ['from', { number: '+1' }],
      ['receivedAt', null],
    ] as const) {
      const body = JSON.stringify({ event: 'sms.received', [field]: value });
      try {
        constructEvent(body, signed(body), secret, { now });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookSignatureError);
        expect(error).toMatchObject({ reason: 'invalid_payload', message: `the "${field}" field of an sms event must be a string` });
      }
    }
  });

  it('uses fallbackType for deliveries that name nothing it knows', () => {
    const body = JSON.stringify({ from: '+15550001', text: 'hello' });
    expect(constructEvent(body, signed(body), secret, { now, fallbackType: 'sms' }).type).toBe('sms');
    const named = JSON.stringify({ event: 'webhook.test' });
    expect(constructEvent(named, signed(named), secret, { now, fallbackType: 'sms' }).type).toBe('webhook.test');
  });

  it('reads headers from a WHATWG Headers and from Node string[] values, any case', () => {
    const body = JSON.stringify({ event: 'webhook.test' });
    const headers = new Headers({ 'X-Service-Signature': signPayload(body, secret, { timestamp: t }), 'X-Service-Delivery': 'dlv_1' });
    expect(constructEvent(body, headers, secret, { now }).delivery.deliveryId).toBe('dlv_1');
    const nodeStyle = { 'X-SERVICE-SIGNATURE': [signPayload(body, secret, { timestamp: t })] };
    expect(constructEvent(body, nodeStyle, secret, { now }).type).toBe('webhook.test');
  });

  it('verifies before parsing: a tampered body is a signature_mismatch, not a parse error', () => {
    const body = JSON.stringify({ event: 'webhook.test' });
    expect(() => constructEvent(`${body}x`, signed(body), secret, { now })).toThrow(expect.objectContaining({ reason: 'signature_mismatch' }));
    expect(() => constructEvent(body, {}, secret, { now })).toThrow(expect.objectContaining({ reason: 'missing_header' }));
  });

  it('refuses an authentic body that is not JSON, not UTF-8, or a voice.test.completed without id as invalid_payload', () => {
    const notJson = 'not json';
    const notUtf8 = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const noId = JSON.stringify({ event: 'voice.test.completed', score: 1 });
    const smsArray = JSON.stringify([1]);
    for (const [body, headers] of [
      [notJson, signed(notJson)],
      [notUtf8, { 'x-service-signature': signPayload(notUtf8, secret, { timestamp: t }) }],
      [noId, signed(noId)],
      [smsArray, signed(smsArray, { 'x-service-event': 'sms' })],
    ] as const) {
      try {
        constructEvent(body, headers, secret, { now });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookSignatureError);
        expect((error as WebhookSignatureError).reason).toBe('invalid_payload');
      }
    }
  });

  it('narrows exhaustively on type', () => {
    const describeEvent = (event: WebhookEvent): string => {
      switch (event.type) {
        case 'voice.test.completed':
          return `voice test ${event.id}`;
        case 'webhook.test':
        case 'sms':
        case 'voice':
          return `${event.type} ${Object.keys(event.data).length}`;
        case 'unknown':
          return 'unknown';
        default: {
          const unreachable: never = event;
          return unreachable;
        }
      }
    };
    const body = JSON.stringify({ id: 'vqt_3', event: 'voice.test.completed' });
    expect(describeEvent(constructEvent(body, signed(body), secret, { now }))).toBe('voice test vqt_3');
  });
});
