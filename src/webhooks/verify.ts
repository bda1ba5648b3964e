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
 * The form every delivery of the service has, `t=<digits>,v1=<64 chars>`, read with one indexOf;
 * undefined for anything else, which {@link parseHeader} then reads the general way.
 */
function parseCanonical(header: string): ParsedHeader | undefined {
  if (header.charCodeAt(0) !== 116 /* t */ || header.charCodeAt(1) !== 61 /* = */) return undefined;
  const comma = header.indexOf(',', 2);
  if (comma === -1 || header.length - comma !== CANONICAL_TAIL_LENGTH) return undefined;
  if (header.charCodeAt(comma + 1) !== 118 || header.charCodeAt(comma + 2) !== 49 || header.charCodeAt(comma + 3) !== 61) {
    return undefined;
  }
  const timestamp = header.slice(2, comma);
  return isDigits(timestamp) ? { timestamp, signatures: [header.slice(comma + 4)] } : undefined;
}

/**
 * Reads `t=<unix>,v1=<hex>[,v1=<hex>…]` in one pass of indexOf, without regular expressions
 * and without slicing keys (this runs on every delivery): items in any order, whitespace around
 * items, keys and values tolerated, unknown schemes (v0, v2 …) ignored. Messages never repeat
 * the header.
 */
function parseHeader(header: string): ParsedHeader {
  const canonical = parseCanonical(header);
  if (canonical) return canonical;
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

function checkSecrets(secret: unknown): void {
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
 * Whether any candidate is the HMAC of `<t>.<body>` under `key`. The digest is taken as lowercase
 * hex (a string: cheaper than a fresh Buffer) and compared as bytes with timingSafeEqual; only
 * the length, public anyway, is compared in variable time.
 */
function matchesAny(key: string, prefix: string, body: string | Uint8Array, candidates: readonly string[]): boolean {
  expectedBytes.write(createHmac('sha256', key).update(prefix).update(body).digest('hex'), 0, 'latin1');
  let matched = false;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i] as string;
    if (candidate.length !== DIGEST_HEX_LENGTH) continue;
    // Header values are byte strings (HTTP, Node and WHATWG alike), so latin1 copies them exactly.
    candidateBytes.write(candidate, 0, 'latin1');
    if (timingSafeEqual(expectedBytes, candidateBytes)) matched = true;
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
  const { timestamp, signatures } = parseHeader(headerValue(signatureHeader));
  const prefix = `${timestamp}.`;

  let matched = false;
  if (typeof secret === 'string') {
    matched = matchesAny(secret, prefix, body, signatures);
  } else {
    for (let i = 0; i < secret.length; i++) {
      if (matchesAny(secret[i] as string, prefix, body, signatures)) matched = true;
    }
  }
  if (!matched && !explainMismatch(typeof secret === 'string' ? [secret] : secret, prefix, body, signatures)) {
    fail('signature_mismatch', 'no v1 signature matches the body with the given signing secret(s)');
  }

  const signedAt = Number(timestamp);
  const tolerance = options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options?.now;
  const nowMs = now instanceof Date ? now.getTime() : Date.now();
  // Checked after the signature so that an authentic but stale delivery (replay, clock skew) is told apart from a forgery.
  if (!(Math.abs(nowMs / 1000 - signedAt) <= tolerance)) {
    fail('timestamp_out_of_tolerance', `the signed timestamp is more than ${tolerance} seconds away from now`);
  }
  return { timestamp: signedAt };
}
