import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  constructEvent,
  constructEventAsync,
  signPayload,
  verifySignature,
  verifySignatureAsync,
  WebhookSignatureError,
  type VerifyOptions,
} from '../../src/webhooks/index.js';

const T = 1_750_000_000;
const now = new Date(T * 1000);

type Outcome = { accepted: number } | { reason: string };

function syncOutcome(run: () => { timestamp: number }): Outcome {
  try {
    return { accepted: run().timestamp };
  } catch (error) {
    if (!(error instanceof WebhookSignatureError)) throw error;
    return { reason: error.reason };
  }
}

async function asyncOutcome(run: () => Promise<{ timestamp: number }>): Promise<Outcome> {
  try {
    return { accepted: (await run()).timestamp };
  } catch (error) {
    if (!(error instanceof WebhookSignatureError)) throw error;
    return { reason: error.reason };
  }
}

const keyArb = fc.oneof(fc.string({ minLength: 1, maxLength: 24 }), fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }), fc.constant(''));
const bodyArb = fc.oneof(fc.uint8Array({ maxLength: 256 }), fc.string({ maxLength: 64, unit: 'binary' }));

/** Header items: the right signature (as is, uppercased, or with a non-latin1 character), wrong ones, and junk. */
function itemArb(v1: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(`t=${T}`, `t=${T + 1}`, `t=${T - 400}`, 't=', 't=abc', ` t = ${T} `),
    fc.constantFrom(`v1=${v1}`, `v1=${v1.toUpperCase()}`, `v1=${String.fromCharCode(v1.charCodeAt(0) + 0x100)}${v1.slice(1)}`),
    fc.constantFrom('v1=', 'v1=zz', `v1=${'0'.repeat(64)}`, `v1=${v1.slice(1)}`, 'v0=1', '=x', 'junk', '', ' '),
    fc.string({ maxLength: 12 }),
  );
}

describe('verifySignatureAsync against verifySignature', () => {
  it('accepts and refuses exactly the same deliveries, for the same reasons', async () => {
    const deliveryArb = fc
      .record({
        body: bodyArb,
        keys: fc.array(keyArb, { minLength: 1, maxLength: 3 }),
        oneKey: fc.boolean(),
        signer: fc.nat(),
        options: fc.constantFrom<VerifyOptions>({ now }, { now, toleranceSeconds: 0 }, { now, maxHeaderLength: 40 }, { now: new Date(Number.NaN) }),
      })
      .chain((delivery) => {
        const key = delivery.keys[delivery.signer % delivery.keys.length] ?? '';
        const bytes = typeof delivery.body === 'string' ? Buffer.from(delivery.body, 'utf8') : delivery.body;
        const v1 = createHmac('sha256', key).update(`${T}.`).update(bytes).digest('hex');
        const stale = createHmac('sha256', key)
          .update(`${T - 400}.`)
          .update(bytes)
          .digest('hex');
        return fc
          .oneof(
            // The form the service sends, fresh or stale, then anything made of items.
            fc.constantFrom(`t=${T},v1=${v1}`, `t=${T - 400},v1=${stale}`, `v1=${v1},t=${T}`),
            fc.array(itemArb(v1), { minLength: 1, maxLength: 6 }).map((items) => items.join(',')),
          )
          .map((header) => ({ ...delivery, header }));
      });
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(deliveryArb, async ({ body, keys, oneKey, header, options }) => {
        const secret = oneKey ? (keys[0] ?? '') : keys;
        const expected = syncOutcome(() => verifySignature(body, header, secret, options));
        seen.add('reason' in expected ? expected.reason : 'accepted');
        expect(await asyncOutcome(() => verifySignatureAsync(body, header, secret, options))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
    // The inputs reach every outcome, so agreement means something.
    for (const outcome of [
      'accepted',
      'signature_mismatch',
      'malformed_header',
      'missing_timestamp',
      'missing_signature',
      'timestamp_out_of_tolerance',
      'invalid_secret',
    ]) {
      expect(seen).toContain(outcome);
    }
  });

  it('agrees on the headers the service sends, for any body and secret', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }),
        fc.integer({ min: -600, max: 600 }),
        async (body, key, skew) => {
          const header = signPayload(body, key, { timestamp: T + skew });
          const expected = syncOutcome(() => verifySignature(body, header, key, { now }));
          expect(expected).toEqual(Math.abs(skew) <= 300 ? { accepted: T + skew } : { reason: 'timestamp_out_of_tolerance' });
          expect(await asyncOutcome(() => verifySignatureAsync(body, header, key, { now }))).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses what the synchronous form refuses before any HMAC, as a rejection', async () => {
    const header = signPayload('{}', 'k', { timestamp: T });
    const cases: Array<[unknown, unknown, unknown, string]> = [
      [{ parsed: true }, header, 'k', 'invalid_body'],
      ['{}', header, '', 'invalid_secret'],
      ['{}', undefined, 'k', 'missing_header'],
      ['{}', 42, 'k', 'malformed_header'],
      ['{}', `t=${T}`, 'k', 'missing_signature'],
    ];
    for (const [body, signature, key, reason] of cases) {
      const run = verifySignatureAsync(body as string, signature as string, key as string, { now });
      await expect(run).rejects.toBeInstanceOf(WebhookSignatureError);
      await expect(run).rejects.toMatchObject({ reason });
    }
  });

  it.each([
    ['a crypto global without subtle', {}],
    ['no crypto global at all', undefined],
  ])('says to use verifySignature in a runtime without Web Crypto: %s', async (_, crypto) => {
    vi.stubGlobal('crypto', crypto);
    const run = verifySignatureAsync('{}', signPayload('{}', 'k', { timestamp: T }), 'k', { now });
    await expect(run).rejects.not.toBeInstanceOf(WebhookSignatureError);
    await expect(run).rejects.toThrow('Web Crypto (globalThis.crypto.subtle) is not available in this runtime: use verifySignature');
  });
});

describe('constructEventAsync', () => {
  it('gives the same event as constructEvent, and the same refusal for a body that is not JSON', async () => {
    const body = JSON.stringify({ event: 'sms.received', text: 'hi', from: '+15550001' });
    const headers = new Headers({ 'x-service-signature': signPayload(body, 'k', { timestamp: T }), 'x-service-event': 'sms.received' });
    expect(await constructEventAsync(new TextEncoder().encode(body), headers, 'k', { now })).toEqual(constructEvent(body, headers, 'k', { now }));
    const notJson = new Headers({ 'x-service-signature': signPayload('nope', 'k', { timestamp: T }) });
    await expect(constructEventAsync('nope', notJson, 'k', { now })).rejects.toMatchObject({ reason: 'invalid_payload' });
  });
});
