import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex as nodeHmac } from '../../src/webhooks/hmac.js';
import { hmacSha256Hex as webHmac } from '../../src/webhooks/hmac.web.js';

function reference(key: string, prefix: string, body: string | Uint8Array): string {
  return createHmac('sha256', key).update(prefix).update(body).digest('hex');
}

describe('the HMAC of the web build (no Node module)', () => {
  it('matches RFC 4231 test case 2', () => {
    expect(webHmac('Jefe', '', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('equals Node crypto for bodies around every padding boundary and keys longer than a block', () => {
    for (const keyLength of [0, 1, 63, 64, 65, 200]) {
      for (const bodyLength of [0, 1, 54, 55, 56, 63, 64, 65, 119, 120, 128, 1000]) {
        const key = 'k'.repeat(keyLength);
        const body = new Uint8Array(bodyLength).map((_, i) => (i * 31 + keyLength) & 0xff);
        expect(webHmac(key, '1750000000.', body), `key ${keyLength}, body ${bodyLength}`).toBe(reference(key, '1750000000.', body));
      }
    }
  });

  it('equals Node crypto for any key, prefix and body, strings hashed as UTF-8 (lone surrogates included)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 300 });
    fc.assert(
      fc.property(text, text, fc.oneof(text, fc.uint8Array({ maxLength: 600 })), (key, prefix, body) => {
        expect(webHmac(key, prefix, body)).toBe(reference(key, prefix, body));
        expect(nodeHmac(key, prefix, body)).toBe(reference(key, prefix, body));
      }),
      { numRuns: 300 },
    );
  });
});
