import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
import { verifySignature, WebhookSignatureError } from '../../src/webhooks/index.js';

const T = 1_750_000_000;
const now = new Date(T * 1000);

function sign(key: string, timestamp: number, raw: Uint8Array): string {
  return createHmac('sha256', key).update(`${timestamp}.`).update(raw).digest('hex');
}

const secretArb = fc.string({ minLength: 1, maxLength: 40 });
const bodyArb = fc.uint8Array({ maxLength: 512 });

function rejects(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return true;
  }
}

describe('verifySignature under random tampering', () => {
  it('accepts every untampered delivery', () => {
    fc.assert(
      fc.property(bodyArb, secretArb, fc.integer({ min: -300, max: 300 }), (raw, key, skew) => {
        const timestamp = T + skew;
        expect(verifySignature(raw, `t=${timestamp},v1=${sign(key, timestamp, raw)}`, key, { now }).timestamp).toBe(timestamp);
      }),
    );
  });

  it('rejects any change of the body', () => {
    fc.assert(
      fc.property(bodyArb, secretArb, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean(), (raw, key, position, flip, append) => {
        const header = `t=${T},v1=${sign(key, T, raw)}`;
        let tampered: Uint8Array;
        if (append || raw.length === 0) {
          tampered = new Uint8Array([...raw, flip]);
        } else {
          tampered = Uint8Array.from(raw);
          const index = position % raw.length;
          tampered[index] = (tampered[index] ?? 0) ^ flip;
        }
        expect(rejects(() => verifySignature(tampered, header, key, { now }))).toBe(true);
      }),
    );
  });

  it('rejects any change of the signed timestamp, even inside the tolerance', () => {
    fc.assert(
      fc.property(
        bodyArb,
        secretArb,
        fc.integer({ min: -299, max: 299 }).filter((d) => d !== 0),
        (raw, key, delta) => {
          const header = `t=${T + delta},v1=${sign(key, T, raw)}`;
          expect(rejects(() => verifySignature(raw, header, key, { now }))).toBe(true);
        },
      ),
    );
  });

  it('rejects any change of the signature', () => {
    fc.assert(
      fc.property(bodyArb, secretArb, fc.nat({ max: 63 }), fc.integer({ min: 1, max: 15 }), (raw, key, position, xor) => {
        const v1 = sign(key, T, raw);
        const digit = (parseInt(v1[position] ?? '0', 16) ^ xor).toString(16);
        const tampered = v1.slice(0, position) + digit + v1.slice(position + 1);
        expect(rejects(() => verifySignature(raw, `t=${T},v1=${tampered}`, key, { now }))).toBe(true);
      }),
    );
  });

  it('rejects a signature made with another secret', () => {
    fc.assert(
      fc.property(bodyArb, secretArb, secretArb, (raw, key, other) => {
        fc.pre(key !== other);
        expect(rejects(() => verifySignature(raw, `t=${T},v1=${sign(other, T, raw)}`, key, { now }))).toBe(true);
      }),
    );
  });
});

/** The reason verification refuses with, or 'accepted'. */
function outcome(fn: () => unknown): string {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return (error as WebhookSignatureError).reason;
  }
}

describe("verifySignature on headers in and near the service's exact form", () => {
  // Characters that matter to the parser, hex of both cases, and characters beyond latin1.
  const tricky = fc.constantFrom(...'0123456789abcdefABCDEF,=v1t \t', '\u0161', '\u0130', '\u{1F600}');
  // Items hidden at the end of the 64 characters where the exact form expects the v1 alone.
  const tails = (timestamp: number) => [',t=', `,t=${timestamp}`, `, t=${timestamp}`, `,t=${timestamp + 1}`, ',v1=', ', v1=', ',v0=', ',x'];
  const nearCanonical = fc
    .tuple(
      bodyArb,
      secretArb,
      fc.integer({ min: -400, max: 400 }),
      fc.array(fc.tuple(fc.nat({ max: 63 }), tricky), { maxLength: 3 }),
      fc.option(fc.nat({ max: 7 })),
    )
    .map(([raw, key, skew, edits, tail]) => {
      const timestamp = T + skew;
      let v1 = sign(key, timestamp, raw);
      for (const [position, character] of edits) v1 = v1.slice(0, position) + character + v1.slice(position + 1);
      if (tail !== null) {
        const item = tails(timestamp)[tail] ?? '';
        v1 = v1.slice(0, 64 - item.length) + item;
      }
      return { raw, key, header: `t=${timestamp},v1=${v1}` };
    });

  it('gives the same outcome whether or not the header takes the fast path for its exact form', () => {
    fc.assert(
      fc.property(nearCanonical, ({ raw, key, header }) => {
        // A leading space is allowed by the general reading and keeps the header off the fast path.
        const fast = outcome(() => verifySignature(raw, header, key, { now }));
        const general = outcome(() => verifySignature(raw, ` ${header}`, key, { now }));
        expect(fast).toBe(general);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('verifySignature on arbitrary input', () => {
  const anyBody = fc.oneof(fc.string(), fc.uint8Array(), fc.anything(), fc.object());
  const anyHeader = fc.oneof(
    fc.string(),
    fc.anything(),
    fc.array(fc.string()),
    fc
      .tuple(
        fc.oneof(fc.string(), fc.nat().map(String)),
        fc.array(fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 70 }), fc.string())),
      )
      .map(([t, sigs]) => [`t=${t}`, ...sigs.map((s) => `v1=${s}`)].join(',')),
  );
  const anySecret = fc.oneof(fc.string(), fc.array(fc.string()), fc.anything());

  const anyOptions = fc.oneof(
    fc.constant({ now }),
    fc.record({ now: fc.oneof(fc.date(), fc.anything()), toleranceSeconds: fc.oneof(fc.double(), fc.anything()) }, { requiredKeys: [] }),
    fc.anything(),
  );

  /** Options holding a member that is not an option: the one mistake refused otherwise (ConfigurationError). */
  const hasUnknownMember = (options: unknown): boolean =>
    typeof options === 'object' &&
    options !== null &&
    Object.keys(options).some((name) => !['now', 'toleranceSeconds', 'maxHeaderLength'].includes(name));

  it('throws nothing but WebhookSignatureError, whatever body, header, secret and options, or ConfigurationError for an unknown option', () => {
    fc.assert(
      fc.property(anyBody, anyHeader, anySecret, anyOptions, (raw, header, key, options) => {
        try {
          verifySignature(raw as never, header as never, key as never, options as never);
        } catch (error) {
          expect(error).toBeInstanceOf(hasUnknownMember(options) ? ConfigurationError : WebhookSignatureError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
