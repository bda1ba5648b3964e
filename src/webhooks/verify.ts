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

/** HMAC-SHA256 in hex is 64 characters; a v1 value of another length can never match. */
const DIGEST_HEX_LENGTH = 64;

interface ParsedHeader {
  timestamp: string;
  /** As received (trimmed); validated only when none matches, see {@link explainMismatch}. */
  signatures: string[];
}

function fail(reason: WebhookSignatureError['reason'], message: string): never {
  throw new WebhookSignatureError(reason, message);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function isDigits(value: string): boolean {
  if (value.length === 0 || value.length > 15) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** The value of a string that passed {@link isDigits}; on this hot path, cheaper than Number(). */
function digitsValue(value: string): number {
  let seconds = 0;
  for (let i = 0; i < value.length; i++) seconds = seconds * 10 + (value.charCodeAt(i) - 48);
  return seconds;
}

/** The value as lowercase hex, or undefined when it is empty, of odd length, or not hex. */
function lowercaseHex(value: string): string | undefined {
  if (value.length === 0 || value.length % 2 === 1) return undefined;
  let upper = false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code >= 48 && code <= 57) || (code >= 97 && code <= 102)) continue;
    if (code >= 65 && code <= 70) upper = true;
    else return undefined;
  }
  return upper ? value.toLowerCase() : value;
}

function isBlank(header: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(header.charCodeAt(i))) return false;
  return true;
}

/** `header.slice(from, to)` without surrounding whitespace, allocating only the result. */
function trimmedSlice(header: string, from: number, to: number): string {
  while (from < to && isSpace(header.charCodeAt(from))) from++;
  while (to > from && isSpace(header.charCodeAt(to - 1))) to--;
  return header.slice(from, to);
}

/** `,v1=` and 64 hex characters: what follows the timestamp in the form the service sends. */
const CANONICAL_TAIL_LENGTH = 4 + DIGEST_HEX_LENGTH;

/**
 * The timestamp of a header in the form every delivery of the service has,
 * `t=<digits>,v1=<64 chars>`, found with one indexOf; undefined for any other layout. The v1 is
 * then `header.slice(header.length - 64)`. Only a match is trusted from this reading: anything
 * else goes to {@link parseHeader}, so a refusal's reason never depends on which path ran.
 */
function canonicalTimestamp(header: string): string | undefined {
  if (header.charCodeAt(0) !== 116 /* t */ || header.charCodeAt(1) !== 61 /* = */) return undefined;
  const comma = header.indexOf(',', 2);
  if (comma === -1 || header.length - comma !== CANONICAL_TAIL_LENGTH) return undefined;
  if (header.charCodeAt(comma + 1) !== 118 || header.charCodeAt(comma + 2) !== 49 || header.charCodeAt(comma + 3) !== 61) {
    return undefined;
  }
  const timestamp = header.slice(2, comma);
  return isDigits(timestamp) ? timestamp : undefined;
}

/**
 * Reads `t=<unix>,v1=<hex>[,v1=<hex>…]` in one pass of indexOf, without regular expressions
 * and without slicing keys (it runs for every header not in the exact form, and for every
 * refusal): items in any order, whitespace around items, keys and values tolerated, unknown
 * schemes (v0, v2 …) ignored. Messages never repeat the header.
 */
function parseHeader(header: string): ParsedHeader {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  let start = 0;
  while (start <= header.length) {
    let end = header.indexOf(',', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    let keyStart = start;
    start = end + 1;
    if (eq === -1 || eq > end) {
      if (isBlank(header, keyStart, end)) continue;
      fail('malformed_header', 'the signature header has an item without "=": expected t=<unix>,v1=<hex>');
    }
    let keyEnd = eq;
    while (keyStart < keyEnd && isSpace(header.charCodeAt(keyStart))) keyStart++;
    while (keyEnd > keyStart && isSpace(header.charCodeAt(keyEnd - 1))) keyEnd--;
    const keyLength = keyEnd - keyStart;
    if (keyLength === 1 && header.charCodeAt(keyStart) === 116 /* t */) {
      const value = trimmedSlice(header, eq + 1, end);
      if (!isDigits(value)) fail('malformed_header', 'the signature header timestamp is not unix seconds');
      if (timestamp !== undefined && timestamp !== value) {
        fail('malformed_header', 'the signature header carries two different timestamps');
      }
      timestamp = value;
    } else if (keyLength === 2 && header.charCodeAt(keyStart) === 118 /* v */ && header.charCodeAt(keyStart + 1) === 49 /* 1 */) {
      signatures.push(trimmedSlice(header, eq + 1, end));
    } else if (keyLength === 0) {
      fail('malformed_header', 'the signature header has an item without a name');
    }
  }
  if (timestamp === undefined) fail('missing_timestamp', 'the signature header has no t=<unix seconds> item');
  if (signatures.length === 0) fail('missing_signature', 'the signature header has no v1=<hex> signature');
  return { timestamp, signatures };
}

/** Refuses a missing or empty secret, or a list holding one; shared with the adapters, which check at creation. */
export function checkSecrets(secret: unknown): void {
  if (typeof secret === 'string' && secret.length > 0) return;
  const list: readonly unknown[] = Array.isArray(secret) ? secret : [];
  if (list.length === 0) fail('invalid_secret', 'no signing secret was given: pass the signingSecret of the webhook registration');
  for (const item of list) {
    if (typeof item !== 'string' || item.length === 0) fail('invalid_secret', 'every signing secret must be a non-empty string');
  }
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

/** Scratch space for the comparison; verification is synchronous, so one pair serves every call. */
const expectedBytes = Buffer.alloc(DIGEST_HEX_LENGTH);
const candidateBytes = Buffer.alloc(DIGEST_HEX_LENGTH);

/**
 * Takes the HMAC of `<t>.<body>` under `key` as lowercase hex (a string: cheaper than a fresh
 * Buffer) into the scratch space that {@link equalsExpected} compares against.
 */
function computeExpected(key: string, prefix: string, body: string | Uint8Array): void {
  expectedBytes.write(createHmac('sha256', key).update(prefix).update(body).digest('hex'), 0, 'latin1');
}

/**
 * Whether `candidate` is the expected digest, compared as bytes with timingSafeEqual; only the
 * length, public anyway, is compared in variable time. The latin1 copy is exact for header values,
 * which are byte strings in HTTP, Node and WHATWG alike. A string built in JavaScript with
 * characters beyond latin1 is compared by their low byte: like uppercase hex, that is only another
 * spelling of the valid signature, which nobody without the valid signature can write.
 */
function equalsExpected(candidate: string): boolean {
  if (candidate.length !== DIGEST_HEX_LENGTH) return false;
  candidateBytes.write(candidate, 0, 'latin1');
  return timingSafeEqual(expectedBytes, candidateBytes);
}

/** Whether any candidate is the HMAC of `<t>.<body>` under `key`; every candidate is compared, matched or not. */
function matchesAny(key: string, prefix: string, body: string | Uint8Array, candidates: readonly string[]): boolean {
  computeExpected(key, prefix, body);
  let matched = false;
  for (let i = 0; i < candidates.length; i++) {
    if (equalsExpected(candidates[i] as string)) matched = true;
  }
  return matched;
}

/** Whether the v1 of a canonical header matches under any of the secrets. */
function canonicalMatches(secret: WebhookSecret, prefix: string, body: string | Uint8Array, candidate: string): boolean {
  if (typeof secret === 'string') {
    computeExpected(secret, prefix, body);
    return equalsExpected(candidate);
  }
  let matched = false;
  for (let i = 0; i < secret.length; i++) {
    computeExpected(secret[i] as string, prefix, body);
    if (equalsExpected(candidate)) matched = true;
  }
  return matched;
}

/**
 * Runs only when no candidate matched as received: a v1 that is not hex makes the header
 * malformed; uppercase hex is given a second chance in lowercase. Keeping this off the happy
 * path keeps every successful verification free of per-character validation.
 */
function explainMismatch(secrets: readonly string[], prefix: string, body: string | Uint8Array, signatures: readonly string[]): boolean {
  const normalized: string[] = [];
  for (const signature of signatures) {
    const hex = lowercaseHex(signature);
    if (hex === undefined) fail('malformed_header', 'a v1 signature in the signature header is not an even-length hex string');
    if (hex !== signature) normalized.push(hex);
  }
  if (normalized.length === 0) return false;
  for (const key of secrets) if (matchesAny(key, prefix, body, normalized)) return true;
  return false;
}

/** Reads any header the general way and checks it; returns the signed timestamp or throws the reason. */
function verifyParsed(header: string, secret: WebhookSecret, body: string | Uint8Array): string {
  const { timestamp, signatures } = parseHeader(header);
  const prefix = `${timestamp}.`;
  const secrets = typeof secret === 'string' ? [secret] : secret;
  let matched = false;
  for (const key of secrets) if (matchesAny(key, prefix, body, signatures)) matched = true;
  if (!matched && !explainMismatch(secrets, prefix, body, signatures)) {
    fail('signature_mismatch', 'no v1 signature matches the body with the given signing secret(s)');
  }
  return timestamp;
}

/** `options.toleranceSeconds`, refusing (so failing closed) anything but a number ≥ 0. */
function toleranceOf(options: VerifyOptions | undefined): number {
  const tolerance: unknown = options?.toleranceSeconds;
  if (tolerance === undefined) return DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !(tolerance >= 0)) {
    fail('timestamp_out_of_tolerance', 'toleranceSeconds must be a number of seconds, 0 or more (Infinity turns the check off)');
  }
  return tolerance;
}

/**
 * `options.now` in unix seconds. Anything but a valid Date (a number of seconds or milliseconds
 * is the likely mistake) is refused rather than replaced by the real clock, which would make a
 * test pass or fail for the wrong reason.
 */
function nowSeconds(options: VerifyOptions | undefined): number {
  const now: unknown = options?.now;
  if (now === undefined) return Date.now() / 1000;
  const ms = now instanceof Date ? now.getTime() : Number.NaN;
  if (Number.isNaN(ms)) fail('timestamp_out_of_tolerance', 'options.now must be a valid Date');
  return ms / 1000;
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
  options?: VerifyOptions,
): VerifiedSignature {
  const body = toRawBytes(rawBody);
  checkSecrets(secret);
  const header = headerValue(signatureHeader);
  let timestamp = canonicalTimestamp(header);
  if (timestamp === undefined || !canonicalMatches(secret, `${timestamp}.`, body, header.slice(header.length - DIGEST_HEX_LENGTH))) {
    timestamp = verifyParsed(header, secret, body);
  }

  const signedAt = digitsValue(timestamp);
  const tolerance = toleranceOf(options);
  // Checked after the signature so that an authentic but stale delivery (replay, clock skew) is told apart from a forgery.
  if (!(Math.abs(nowSeconds(options) - signedAt) <= tolerance)) {
    fail('timestamp_out_of_tolerance', `the signed timestamp is more than ${tolerance} seconds away from now`);
  }
  return { timestamp: signedAt };
}
