import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { signPayload, verifySignature, WebhookSignatureError } from '../../src/webhooks/index.js';

const secret = `whsec_${'ab'.repeat(32)}`;
const body = '{"id":"vqt_123","event":"voice.test.completed","score":4.2}';
const t = 1_750_000_000;
const now = new Date(t * 1000);

/** The reference computation, written from the spec alone (part 6). */
function hmacHex(key: string, timestamp: number | string, raw: string | Buffer): string {
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8')]))
    .digest('hex');
}

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return (error as WebhookSignatureError).reason;
  }
  throw new Error('expected a WebhookSignatureError');
}

describe('verifySignature', () => {
  it('accepts a signature computed independently over "<t>.<raw body>" and returns the timestamp', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    expect(verifySignature(body, header, secret, { now })).toEqual({ timestamp: t });
  });

  it('accepts the same bytes as string, Buffer, Uint8Array and ArrayBuffer', () => {
    const unicode = '{"text":"héllo ✓ 👋"}';
    const header = `t=${t},v1=${hmacHex(secret, t, Buffer.from(unicode, 'utf8'))}`;
    const buffer = Buffer.from(unicode, 'utf8');
    const u8 = new Uint8Array(buffer);
    for (const raw of [unicode, buffer, u8, u8.buffer]) {
      expect(verifySignature(raw, header, secret, { now }).timestamp).toBe(t);
    }
  });

  it('hashes the exact bytes: a re-serialized body with other spacing is refused', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    const reserialized = JSON.stringify(JSON.parse(body), null, 2);
    expect(reasonOf(() => verifySignature(reserialized, header, secret, { now }))).toBe('signature_mismatch');
  });

  it('parses items in any order, with whitespace, unknown schemes ignored', () => {
    const v1 = hmacHex(secret, t, body);
    for (const header of [
      `v1=${v1},t=${t}`,
      `  t = ${t} ,  v1 = ${v1}  `,
      `v0=deadbeef,t=${t},v2=zzz,v1=${v1}`,
      `t=${t},,v1=${v1},`,
      `t=${t}, \t ,v1=${v1}`,
    ]) {
      expect(verifySignature(body, header, secret, { now }).timestamp).toBe(t);
    }
  });

  it('accepts a repeated t= carrying the same value, and refuses one carrying another', () => {
    const v1 = hmacHex(secret, t, body);
    expect(verifySignature(body, `t=${t},v1=${v1},t=${t}`, secret, { now }).timestamp).toBe(t);
    expect(reasonOf(() => verifySignature(body, `t=${t},v1=${v1},t=${t + 1}`, secret, { now }))).toBe('malformed_header');
  });

  it('reads a header of the exact length of the usual form, but with another item inside, the general way', () => {
    // 50 hex characters and ", t=<t>" fill the 64 characters where the usual form has its v1 alone.
    const header = `t=${t},v1=${'ab'.repeat(25)}, t=${t}`;
    expect(header.length - header.indexOf(',')).toBe(68);
    expect(reasonOf(() => verifySignature(body, header, secret, { now }))).toBe('signature_mismatch');
  });

  it('compares a v1 as the bytes HTTP carries: a character beyond latin1 counts by its low byte, nothing else passes', () => {
    const v1 = hmacHex(secret, t, body);
    // Another spelling of the valid signature, as uppercase hex is: only its holder can write it.
    const aliased = String.fromCharCode(v1.charCodeAt(0) + 0x100) + v1.slice(1);
    expect(verifySignature(body, `t=${t},v1=${aliased}`, secret, { now }).timestamp).toBe(t);
    const wrong = String.fromCharCode(((v1.charCodeAt(0) ^ 1) & 0xff) + 0x100) + v1.slice(1);
    expect(reasonOf(() => verifySignature(body, `t=${t},v1=${wrong}`, secret, { now }))).toBe('malformed_header');
  });

  it('accepts when any of several v1 values matches (rotation on the sender side)', () => {
    const header = `t=${t},v1=${hmacHex('whsec_old', t, body)},v1=${hmacHex(secret, t, body)}`;
    expect(verifySignature(body, header, secret, { now }).timestamp).toBe(t);
  });

  it('accepts uppercase hex, and a matching v1 next to one that is not hex', () => {
    const v1 = hmacHex(secret, t, body);
    expect(verifySignature(body, `t=${t},v1=${v1.toUpperCase()}`, secret, { now }).timestamp).toBe(t);
    expect(verifySignature(body, `t=${t},v1=not-hex,v1=${v1}`, secret, { now }).timestamp).toBe(t);
    expect(reasonOf(() => verifySignature(body, `t=${t},v1=not-hex,v1=${'00'.repeat(32)}`, secret, { now }))).toBe('malformed_header');
    // Even-length, and the signature's length, but not hex: letters past f, and each character
    // just outside a range of hex digits ('/' ':' '@' 'G' '`' 'g').
    for (const outside of ['z', '/', ':', '@', 'G', '`', 'g']) {
      expect(reasonOf(() => verifySignature(body, `t=${t},v1=${outside.repeat(64)}`, secret, { now }))).toBe('malformed_header');
    }
    expect(() => verifySignature(body, `t=${t},v1=not-hex,v1=${'00'.repeat(32)}`, secret, { now })).toThrow(
      'a v1 signature in the signature header is not an even-length hex string',
    );
  });

  it('refuses a v1 that starts or ends with the valid signature but goes on: only the whole value may match', () => {
    const v1 = hmacHex(secret, t, body);
    for (const longer of [`${v1}00`, `${v1}${v1}`, `00${v1}`]) {
      expect(reasonOf(() => verifySignature(body, `t=${t},v1=${longer}`, secret, { now }))).toBe('signature_mismatch');
      expect(reasonOf(() => verifySignature(body, ` v1=${longer}, t=${t}`, secret, { now }))).toBe('signature_mismatch');
    }
  });

  it('refuses a wrong v1 written in uppercase hex: only a value that matches once lowercased is accepted', () => {
    for (const wrong of ['AB'.repeat(32), hmacHex('whsec_other', t, body).toUpperCase()]) {
      expect(reasonOf(() => verifySignature(body, `t=${t},v1=${wrong}`, secret, { now }))).toBe('signature_mismatch');
    }
  });

  it('counts only v1 values: the valid signature under another scheme does not make a header pass', () => {
    const valid = hmacHex(secret, t, body);
    expect(reasonOf(() => verifySignature(body, `t=${t},v1=${'00'.repeat(32)},v0=${valid}`, secret, { now }))).toBe('signature_mismatch');
    expect(reasonOf(() => verifySignature(body, `t=${t},v1=${'00'.repeat(32)},v2=${valid}`, secret, { now }))).toBe('signature_mismatch');
  });

  it('reads a timestamp of 1 to 15 digits, and tolerates spaces, tabs and line breaks around items', () => {
    const v1 = hmacHex(secret, t, body);
    for (const padded of [`t=\t${t}\t,\tv1=${v1}`, `t=${t},\r\nv1=${v1}\n`, `\n t=${t} ,  v1=${v1}`]) {
      expect(verifySignature(body, padded, secret, { now }).timestamp).toBe(t);
    }
    const fifteen = String(t).padStart(15, '0');
    expect(verifySignature(body, `t=${fifteen},v1=${hmacHex(secret, fifteen, body)}`, secret, { now }).timestamp).toBe(t);
    const sixteen = String(t).padStart(16, '0');
    expect(reasonOf(() => verifySignature(body, `t=${sixteen},v1=${hmacHex(secret, sixteen, body)}`, secret, { now }))).toBe('malformed_header');
    expect(reasonOf(() => verifySignature(body, `t=,v1=${v1}`, secret, { now }))).toBe('malformed_header');
  });

  it('says why a delivery is refused, without the header or the secret', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    expect(() => verifySignature(body, `t=${t},v1=${'00'.repeat(32)}`, secret, { now })).toThrow(
      'no v1 signature matches the body with the given signing secret(s)',
    );
    expect(() => verifySignature(body, header, secret, { now: new Date((t + 400) * 1000) })).toThrow(
      "the signed timestamp is 400 s behind this receiver's clock (tolerance 300 s): a delivery replayed or held back, or a sender's clock that runs behind",
    );
  });

  it('accepts when any of several secrets matches (rotation on the receiver side)', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    expect(verifySignature(body, header, ['whsec_new', secret], { now }).timestamp).toBe(t);
    expect(reasonOf(() => verifySignature(body, header, ['whsec_new', 'whsec_other'], { now }))).toBe('signature_mismatch');
  });

  it('joins a repeated header given as string[] by Node', () => {
    const header = [`t=${t}`, `v1=${hmacHex(secret, t, body)}`];
    expect(verifySignature(body, header, secret, { now }).timestamp).toBe(t);
  });

  it('rejects timestamps outside the tolerance in both directions, accepts at the edge', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    const at = (offsetSeconds: number) => new Date((t + offsetSeconds) * 1000);
    expect(verifySignature(body, header, secret, { now: at(300) }).timestamp).toBe(t);
    expect(verifySignature(body, header, secret, { now: at(-300) }).timestamp).toBe(t);
    expect(reasonOf(() => verifySignature(body, header, secret, { now: at(301) }))).toBe('timestamp_out_of_tolerance');
    expect(reasonOf(() => verifySignature(body, header, secret, { now: at(-301) }))).toBe('timestamp_out_of_tolerance');
    expect(reasonOf(() => verifySignature(body, header, secret, { now: at(31), toleranceSeconds: 30 }))).toBe('timestamp_out_of_tolerance');
    expect(verifySignature(body, header, secret, { now: at(10_000), toleranceSeconds: Infinity }).timestamp).toBe(t);
  });

  it('says whether the signed timestamp is ahead or behind, and by how much', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    const at = (offsetSeconds: number) => new Date((t + offsetSeconds) * 1000);
    const messageAt = (offsetSeconds: number) => {
      try {
        verifySignature(body, header, secret, { now: at(offsetSeconds) });
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    // The receiver's clock is behind the signature: the sender's clock runs ahead (a scaled sandbox).
    expect(messageAt(-3_412)).toBe(
      "the signed timestamp is 3412 s ahead of this receiver's clock (tolerance 300 s): the sender's clock runs ahead; against a sandbox with a scaled clock, pass its clock as now",
    );
    expect(messageAt(301)).toBe(
      "the signed timestamp is 301 s behind this receiver's clock (tolerance 300 s): a delivery replayed or held back, or a sender's clock that runs behind",
    );
  });

  it('reads now as a Date and refuses anything else rather than falling back to the real clock', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    for (const bad of [t, t * 1000, String(now), new Date(Number.NaN), null]) {
      try {
        verifySignature(body, header, secret, { now: bad as never });
        expect.unreachable();
      } catch (error) {
        expect((error as WebhookSignatureError).reason).toBe('timestamp_out_of_tolerance');
        expect((error as Error).message).toContain('must be a valid Date');
      }
    }
  });

  it.each([[Number.NaN], [-1], ['300'], [null]])('refuses toleranceSeconds %j instead of guessing', (bad) => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    expect(reasonOf(() => verifySignature(body, header, secret, { now, toleranceSeconds: bad as never }))).toBe('timestamp_out_of_tolerance');
    expect(() => verifySignature(body, header, secret, { now, toleranceSeconds: bad as never })).toThrow(
      'toleranceSeconds must be a number of seconds, 0 or more (Infinity turns the check off)',
    );
  });

  it('takes toleranceSeconds 0 as "signed this very second"', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    expect(verifySignature(body, header, secret, { now, toleranceSeconds: 0 }).timestamp).toBe(t);
    expect(reasonOf(() => verifySignature(body, header, secret, { now: new Date((t + 1) * 1000), toleranceSeconds: 0 }))).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it('uses the current clock when no now is given', () => {
    const fresh = Math.floor(Date.now() / 1000);
    expect(verifySignature(body, `t=${fresh},v1=${hmacHex(secret, fresh, body)}`, secret).timestamp).toBe(fresh);
    expect(reasonOf(() => verifySignature(body, `t=${t},v1=${hmacHex(secret, t, body)}`, secret))).toBe('timestamp_out_of_tolerance');
  });

  it('says whether the signature header is missing or empty', () => {
    for (const header of [undefined, null, []]) {
      expect(() => verifySignature(body, header as unknown as string, secret, { now })).toThrow('the X-Service-Signature header is missing');
    }
    for (const header of ['', '   ', ['']]) {
      expect(() => verifySignature(body, header as unknown as string, secret, { now })).toThrow('the X-Service-Signature header is empty');
    }
    expect(() => verifySignature(body, 42 as unknown as string, secret, { now })).toThrow('the signature header must be a string');
  });

  it('says what is wrong with a header it cannot read, and ignores items of other names', () => {
    const v1 = hmacHex(secret, t, body);
    const refusals: Array<[string, string]> = [
      [`t=${t},garbage,v1=${v1}`, 'the signature header has an item without "=": expected t=<unix>,v1=<hex>'],
      [`t=abc,v1=${v1}`, 'the signature header timestamp is not unix seconds'],
      [`t=${t},t=${t + 1},v1=${v1}`, 'the signature header carries two different timestamps'],
      [`t=${t}, =x,v1=${v1}`, 'the signature header has an item without a name'],
      [`v1=${v1}`, 'the signature header has no t=<unix seconds> item'],
      [`t=${t}`, 'the signature header has no v1=<hex> signature'],
    ];
    for (const [header, message] of refusals) expect(() => verifySignature(body, header, secret, { now })).toThrow(message);
    // Names that only start like t or v1, or end like them, are other schemes.
    expect(verifySignature(body, `t=${t},tt=1,x=2,ts=3,v1=${v1}`, secret, { now }).timestamp).toBe(t);
  });

  it('takes a valid signature only from a v1 item, in the form the service sends too', () => {
    const signature = hmacHex(secret, t, body);
    for (const scheme of ['v0', 'v2', 'w1', 'vv', 'v10', 'v1x']) {
      expect(reasonOf(() => verifySignature(body, `t=${t},${scheme}=${signature}`, secret, { now }))).toBe('missing_signature');
    }
    // Without its "=", a v1 of the canonical length is an item without a value at all.
    expect(reasonOf(() => verifySignature(body, `t=${t},v1:${signature}`, secret, { now }))).toBe('malformed_header');
    // Nor is a timestamp read from anything but a t= item, however short or wherever its digits.
    expect(reasonOf(() => verifySignature(body, `x=${t},v1=${signature}`, secret, { now }))).toBe('missing_timestamp');
    expect(reasonOf(() => verifySignature(body, `t:${t},v1=${signature}`, secret, { now }))).toBe('malformed_header');
    const short = 12;
    expect(reasonOf(() => verifySignature(body, `t=${short},v1:${hmacHex(secret, short, body)}`, secret, { now: new Date(short * 1000) }))).toBe(
      'malformed_header',
    );
    const endsIn1x = t - (t % 100) + 15;
    const its = hmacHex(secret, endsIn1x, body);
    expect(reasonOf(() => verifySignature(body, `t=${endsIn1x},v2=${its}`, secret, { now: new Date(endsIn1x * 1000) }))).toBe('missing_signature');
  });

  it.each([
    ['missing_header', undefined],
    ['missing_header', null],
    ['missing_header', ''],
    ['missing_header', '   '],
    ['missing_header', []],
    ['malformed_header', 'garbage'],
    ['malformed_header', `t=${t},v1`],
    ['malformed_header', `t=abc,v1=${'00'.repeat(32)}`],
    ['malformed_header', `t=-5,v1=${'00'.repeat(32)}`],
    ['malformed_header', `t=${t},t=${t + 1},v1=${'00'.repeat(32)}`],
    ['malformed_header', `t=${t},=x,v1=${'00'.repeat(32)}`],
    ['malformed_header', `t=${t},v1=${'0'.repeat(63)}`],
    ['malformed_header', `t=${t},v1=${'zz'.repeat(32)}`],
    ['malformed_header', `t=${t},v1=`],
    ['missing_timestamp', `v1=${'00'.repeat(32)}`],
    ['missing_signature', `t=${t}`],
    ['missing_signature', `t=${t},v0=${'00'.repeat(32)}`],
    ['signature_mismatch', `t=${t},v1=${'00'.repeat(32)}`],
    ['signature_mismatch', `t=${t},v1=${'00'.repeat(16)}`],
  ])('refuses with reason %s for header %j', (reason, header) => {
    expect(reasonOf(() => verifySignature(body, header as string, secret, { now }))).toBe(reason);
  });

  it.each([
    ['', 'no signing secret was given: pass the signingSecret of the webhook registration'],
    [[], 'no signing secret was given: pass the signingSecret of the webhook registration'],
    [[''], 'every signing secret must be a non-empty string'],
    [[secret, ''], 'every signing secret must be a non-empty string'],
    [undefined, 'no signing secret was given: pass the signingSecret of the webhook registration'],
    [42, 'no signing secret was given: pass the signingSecret of the webhook registration'],
  ])('refuses an unusable secret %j as invalid_secret, saying what to pass', (bad, message) => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    expect(reasonOf(() => verifySignature(body, header, bad as string, { now }))).toBe('invalid_secret');
    expect(() => verifySignature(body, header, bad as string, { now })).toThrow(message);
  });

  it('refuses a parsed body and explains how to keep the raw bytes', () => {
    const header = `t=${t},v1=${hmacHex(secret, t, body)}`;
    try {
      verifySignature(JSON.parse(body) as never, header, secret, { now });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookSignatureError);
      const failure = error as WebhookSignatureError;
      expect(failure.reason).toBe('invalid_body');
      expect(failure.message).toContain('parsed object');
      expect(failure.message).toContain('express.raw');
      expect(failure.message).toContain('rawBody');
    }
    for (const bad of [null, undefined, 12, true, [1, 2]]) {
      expect(reasonOf(() => verifySignature(bad as never, header, secret, { now }))).toBe('invalid_body');
    }
  });

  it('never shows the secret or the signature in messages, JSON or inspect output', () => {
    const v1 = hmacHex(secret, t, body);
    const headers = [`t=${t},v1=${v1}`, `t=${t},v1=${v1.slice(2)}00`, `t=${t},v1=${v1}x`, `t=1,v1=${v1}`];
    for (const header of headers) {
      for (const raw of [body + ' ', body]) {
        try {
          verifySignature(raw, header, [secret, 'whsec_second_secret_value'], { now });
        } catch (error) {
          const shown = [(error as Error).message, JSON.stringify(error), inspect(error), String((error as Error).stack)].join('\n');
          expect(shown).not.toContain(secret);
          expect(shown).not.toContain('whsec_second_secret_value');
          expect(shown).not.toContain(v1);
          expect(shown).not.toContain(v1.slice(2));
        }
      }
    }
  });
});

describe('signPayload', () => {
  it('produces the header the spec describes, byte for byte', () => {
    expect(signPayload(body, secret, { timestamp: t })).toBe(`t=${t},v1=${hmacHex(secret, t, body)}`);
  });

  it('adds one v1 per secret and signs with the current time by default', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2030, 0, 2, 3, 4, 5, 678) });
    let header: string;
    try {
      header = signPayload(body, ['whsec_a', 'whsec_b']);
    } finally {
      vi.useRealTimers();
    }
    const match = /^t=(\d+),v1=([0-9a-f]{64}),v1=([0-9a-f]{64})$/.exec(header);
    expect(match).not.toBeNull();
    const signedAt = Number(match?.[1]);
    // The clock's whole seconds.
    expect(signedAt).toBe(Date.UTC(2030, 0, 2, 3, 4, 5) / 1000);
    expect(match?.[2]).toBe(hmacHex('whsec_a', signedAt, body));
    expect(match?.[3]).toBe(hmacHex('whsec_b', signedAt, body));
  });

  it('round-trips through verifySignature', () => {
    const bytes = Buffer.from(body);
    expect(verifySignature(bytes, signPayload(bytes, secret, { timestamp: t }), secret, { now }).timestamp).toBe(t);
  });

  it('refuses an empty secret and a bad timestamp', () => {
    expect(reasonOf(() => signPayload(body, ''))).toBe('invalid_secret');
    expect(reasonOf(() => signPayload(body, secret, { timestamp: 1.5 }))).toBe('malformed_header');
    expect(reasonOf(() => signPayload(body, secret, { timestamp: -1 }))).toBe('malformed_header');
  });

  it('takes the timestamp in unix seconds and refuses milliseconds with a message saying so', () => {
    expect(signPayload(body, secret, { timestamp: 99_999_999_999 })).toMatch(/^t=99999999999,v1=/);
    try {
      signPayload(body, secret, { timestamp: t * 1000 });
      expect.unreachable();
    } catch (error) {
      expect((error as WebhookSignatureError).reason).toBe('malformed_header');
      expect((error as Error).message).toContain('milliseconds');
    }
  });
});
