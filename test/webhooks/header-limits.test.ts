import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SIGNATURE_HEADER_LENGTH, verifySignature, WebhookSignatureError } from '../../src/webhooks/index.js';

const secret = `whsec_${'cd'.repeat(32)}`;
const body = '{"event":"sms.received","text":"hi"}';
const t = 1_750_000_000;
const now = new Date(t * 1000);
const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return (error as WebhookSignatureError).reason;
  }
  return 'accepted';
}

/** A valid header padded with ignored items (unknown schemes, empty items) to exactly `length` characters. */
function paddedValidHeader(length: number): string {
  const head = `t=${t},v1=${v1},`;
  const items = 'v0=0,'.repeat(Math.floor((length - head.length) / 5));
  return head + items + ','.repeat(length - head.length - items.length);
}

describe('signature header length limit', () => {
  it('is 8 KiB by default, documented as an export', () => {
    expect(DEFAULT_MAX_SIGNATURE_HEADER_LENGTH).toBe(8192);
  });

  it('accepts a valid header of exactly the limit and refuses one character more as malformed_header', () => {
    const atLimit = paddedValidHeader(DEFAULT_MAX_SIGNATURE_HEADER_LENGTH);
    expect(verifySignature(body, atLimit, secret, { now }).timestamp).toBe(t);
    const over = paddedValidHeader(DEFAULT_MAX_SIGNATURE_HEADER_LENGTH + 1);
    expect(reasonOf(() => verifySignature(body, over, secret, { now }))).toBe('malformed_header');
  });

  it('says which limit was passed, without repeating the header', () => {
    const over = paddedValidHeader(DEFAULT_MAX_SIGNATURE_HEADER_LENGTH + 1);
    try {
      verifySignature(body, over, secret, { now });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/longer than 8192 characters \(maxHeaderLength\)/);
      expect((error as Error).message).not.toContain(v1);
    }
  });

  it('refuses an over-long header before reading it: a valid signature inside does not help', () => {
    // One more v1 than fits: the header is authentic, yet refused at once.
    const header = `${paddedValidHeader(DEFAULT_MAX_SIGNATURE_HEADER_LENGTH - 2)},x`;
    expect(reasonOf(() => verifySignature(body, header, secret, { now }))).toBe('malformed_header');
  });

  it('counts a repeated header (string[]) by its joined length', () => {
    const half = DEFAULT_MAX_SIGNATURE_HEADER_LENGTH / 2;
    const fits = [paddedValidHeader(half), ','.repeat(half - 1)];
    expect(verifySignature(body, fits, secret, { now }).timestamp).toBe(t);
    const over = [paddedValidHeader(half), ','.repeat(half)];
    expect(reasonOf(() => verifySignature(body, over, secret, { now }))).toBe('malformed_header');
  });

  it('takes another limit from maxHeaderLength, and refuses a limit that is not a number ≥ 0', () => {
    const long = paddedValidHeader(20_000);
    expect(reasonOf(() => verifySignature(body, long, secret, { now }))).toBe('malformed_header');
    expect(verifySignature(body, long, secret, { now, maxHeaderLength: 20_000 }).timestamp).toBe(t);
    expect(reasonOf(() => verifySignature(body, `t=${t},v1=${v1}`, secret, { now, maxHeaderLength: 10 }))).toBe('malformed_header');
    for (const bad of [Number.NaN, -1, '8192']) {
      const options = { now, maxHeaderLength: bad as number };
      expect(reasonOf(() => verifySignature(body, `t=${t},v1=${v1}`, secret, options))).toBe('malformed_header');
      expect(() => verifySignature(body, `t=${t},v1=${v1}`, secret, options)).toThrow('maxHeaderLength must be a number of characters, 0 or more');
    }
    // 0 is a limit like any other: every header is longer.
    expect(() => verifySignature(body, `t=${t},v1=${v1}`, secret, { now, maxHeaderLength: 0 })).toThrow(
      'the signature header is longer than 0 characters (maxHeaderLength)',
    );
  });
});
