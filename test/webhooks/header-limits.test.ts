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

/** `unit` repeated to at least `length` characters, whole units only. */
function repeat(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length));
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
    }
  });
});

/**
 * Header shapes that made the parser quadratic or could: each is read in full (maxHeaderLength
 * lifted) and refused or accepted for its own reason.
 */
const hostileShapes: Record<string, { build: (length: number) => string; reason: string }> = {
  commas: { build: (n) => repeat(',', n), reason: 'missing_timestamp' },
  'commas then a valid header': { build: (n) => repeat(',', n - 81) + `,t=${t},v1=${v1}`, reason: 'accepted' },
  'empty v1 items': { build: (n) => repeat('v1=,', n), reason: 'missing_timestamp' },
  'repeated t=': { build: (n) => repeat(`t=${t},`, n), reason: 'missing_signature' },
  'v1 pairs after a timestamp': { build: (n) => `t=${t},` + repeat(`v1=${'0'.repeat(64)},`, n - 13), reason: 'signature_mismatch' },
  whitespace: { build: (n) => `t=${t},` + repeat(' \t', n - 13) + `,v1=${v1}`, reason: 'accepted' },
  'items without a value': { build: (n) => `t=${t},v1=${v1},` + repeat('v0=,', n - 80), reason: 'accepted' },
};

/** CPU time (user + system, µs) of `runs` verifications of `header`. */
function cpuMicros(header: string, runs: number): number {
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) reasonOf(() => verifySignature(body, header, secret, { now, maxHeaderLength: Infinity }));
  const spent = process.cpuUsage(before);
  return spent.user + spent.system;
}

describe('signature header parsing', () => {
  for (const [name, shape] of Object.entries(hostileShapes)) {
    it(`reads a header of ${name} in time linear in its length`, () => {
      const small = shape.build(64 * 1024);
      const large = shape.build(1024 * 1024);
      expect(reasonOf(() => verifySignature(body, small, secret, { now, maxHeaderLength: Infinity }))).toBe(shape.reason);
      expect(reasonOf(() => verifySignature(body, large, secret, { now, maxHeaderLength: Infinity }))).toBe(shape.reason);
      // The same number of characters either way: 64 headers of 64 KiB against 4 of 1 MiB. Linear
      // parsing costs about the same for both; quadratic parsing costs 16 times more for the large.
      let best = Number.POSITIVE_INFINITY;
      for (let trial = 0; trial < 3 && best >= 3; trial++) {
        const smallCost = cpuMicros(small, 64);
        const largeCost = cpuMicros(large, 4);
        best = Math.min(best, largeCost / Math.max(smallCost, 1));
      }
      expect(best).toBeLessThan(3);
    });
  }
});
