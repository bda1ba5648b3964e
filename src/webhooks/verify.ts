import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookSignatureError } from '../core/errors.js';
import { toRawBytes, type RawBody } from './raw-body.js';

/** One signing secret, or several while a secret is being rotated (any of them may match). */
export type WebhookSecret = string | readonly string[];

export interface VerifyOptions {
  /** Largest accepted distance, in either direction, between the signed timestamp and now. Default 300 (spec part 6 rule 3). */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
}

export interface VerifiedSignature {
  /** The signed timestamp, unix seconds. */
  timestamp: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** HMAC-SHA256 gives 32 bytes; a v1 value of another length can never match. */
const DIGEST_BYTES = 32;

interface ParsedHeader {
  timestamp: string;
  signatures: Buffer[];
}

function fail(reason: WebhookSignatureError['reason'], message: string): never {
  throw new WebhookSignatureError(reason, message);
}

function isDigits(value: string): boolean {
  if (value.length === 0 || value.length > 15) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** `header.slice(from, to)` without surrounding whitespace, allocating only the result. */
function trimmedSlice(header: string, from: number, to: number): string {
  while (from < to && isSpace(header.charCodeAt(from))) from++;
  while (to > from && isSpace(header.charCodeAt(to - 1))) to--;
  return header.slice(from, to);
}

/**
 * Reads `t=<unix>,v1=<hex>[,v1=<hex>…]` in one pass of indexOf, without regular expressions
 * (this is the hot path of every receiver): items in any order, whitespace around items, keys
 * and values tolerated, unknown schemes (v0, v2 …) ignored. Messages never repeat the header.
 */
function parseHeader(header: string): ParsedHeader {
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  let start = 0;
  while (start <= header.length) {
    let end = header.indexOf(',', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    const itemStart = start;
    start = end + 1;
    if (eq === -1 || eq > end) {
      if (trimmedSlice(header, itemStart, end) === '') continue;
      fail('malformed_header', 'the signature header has an item without "=": expected t=<unix>,v1=<hex>');
    }
    const key = trimmedSlice(header, itemStart, eq);
    if (key === 't') {
      const value = trimmedSlice(header, eq + 1, end);
      if (!isDigits(value)) fail('malformed_header', 'the signature header timestamp is not unix seconds');
      if (timestamp !== undefined && timestamp !== value) {
        fail('malformed_header', 'the signature header carries two different timestamps');
      }
      timestamp = value;
    } else if (key === 'v1') {
      const value = trimmedSlice(header, eq + 1, end);
      // Buffer.from stops at the first non-hex pair and drops an odd last digit: a short result means bad hex.
      const bytes = Buffer.from(value, 'hex');
      if (value.length === 0 || bytes.length * 2 !== value.length) {
        fail('malformed_header', 'a v1 signature in the signature header is not an even-length hex string');
      }
      signatures.push(bytes);
    } else if (key === '') {
      fail('malformed_header', 'the signature header has an item without a name');
    }
  }
  if (timestamp === undefined) fail('missing_timestamp', 'the signature header has no t=<unix seconds> item');
  if (signatures.length === 0) fail('missing_signature', 'the signature header has no v1=<hex> signature');
  return { timestamp, signatures };
}

function secretsOf(secret: unknown): readonly string[] {
  const list: readonly unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  if (list.length === 0) fail('invalid_secret', 'no signing secret was given: pass the signingSecret of the webhook registration');
  for (const item of list) {
    if (typeof item !== 'string' || item.length === 0) {
      fail('invalid_secret', 'every signing secret must be a non-empty string');
    }
  }
  return list as readonly string[];
}

function headerValue(signatureHeader: unknown): string {
  if (typeof signatureHeader === 'string') {
    if (signatureHeader.length === 0 || (isSpace(signatureHeader.charCodeAt(0)) && signatureHeader.trim() === '')) {
      fail('missing_header', 'the X-Service-Signature header is empty');
    }
    return signatureHeader;
  }
  // Node gives string[] when a header is repeated; the items are joined as one list.
  if (Array.isArray(signatureHeader) && signatureHeader.length > 0 && signatureHeader.every((item) => typeof item === 'string')) {
    return headerValue(signatureHeader.join(','));
  }
  if (signatureHeader === undefined || signatureHeader === null || Array.isArray(signatureHeader)) {
    fail('missing_header', 'the X-Service-Signature header is missing');
  }
  return fail('malformed_header', 'the signature header must be a string');
}

/**
 * Checks a delivery's `X-Service-Signature` against the exact received bytes (spec part 6):
 * HMAC-SHA256 keyed with the signingSecret over `<t>.<raw body>`, compared in constant time,
 * then the timestamp against the tolerance in both directions. A string body is hashed as UTF-8.
 *
 * Arguments are also checked at run time (a parsed object as body, a missing header or
 * secret), so plain JavaScript callers get the same clear errors.
 *
 * @throws {WebhookSignatureError} with a machine-readable `reason`; never anything else.
 */
export function verifySignature(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: WebhookSecret,
  options: VerifyOptions = {},
): VerifiedSignature {
  const body = toRawBytes(rawBody);
  const secrets = typeof secret === 'string' && secret.length > 0 ? [secret] : secretsOf(secret);
  const { timestamp, signatures } = parseHeader(headerValue(signatureHeader));
  const prefix = `${timestamp}.`;

  let matched = false;
  for (const key of secrets) {
    const expected = createHmac('sha256', key).update(prefix).update(body).digest();
    for (const candidate of signatures) {
      // Length is public (always 32 for a real signature); the content comparison is constant-time.
      if (candidate.length === DIGEST_BYTES && timingSafeEqual(expected, candidate)) matched = true;
    }
  }
  if (!matched) {
    fail('signature_mismatch', 'no v1 signature matches the body with the given signing secret(s)');
  }

  const signedAt = Number(timestamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowMs = options.now instanceof Date ? options.now.getTime() : Date.now();
  // Checked after the signature so that an authentic but stale delivery (replay, clock skew) is told apart from a forgery.
  if (!(Math.abs(nowMs / 1000 - signedAt) <= tolerance)) {
    fail('timestamp_out_of_tolerance', `the signed timestamp is more than ${tolerance} seconds away from now`);
  }
  return { timestamp: signedAt };
}
