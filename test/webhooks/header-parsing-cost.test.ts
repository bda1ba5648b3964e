/**
 * What reading a signature header costs: linear in its length whatever its shape, so that an
 * unauthenticated sender cannot make a receiver spend quadratic time on a header it then refuses.
 * Each test reads megabytes of header and compares CPU time (see header-limits.test.ts for the
 * length limit that keeps real headers small).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignature, WebhookSignatureError } from '../../src/webhooks/index.js';

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

/** `unit` repeated to at least `length` characters, whole units only. */
function repeat(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length));
}

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
