import { WebhookSignatureError } from '../core/errors.js';

/**
 * The grammar of `X-Service-Signature` (spec part 6): `t=<unix>,v1=<hex>[,v1=<hex>…]`. Every
 * function here is linear in the length of the header, so that what an unauthenticated sender
 * controls costs at most one pass before the header is refused or the HMAC runs.
 */

/**
 * Longest signature header read, in characters (header values are byte strings, so bytes). The
 * service sends about 80; 8 KiB leaves room for a hundred v1 values during a rotation, and is the
 * common default of HTTP servers for a whole header line.
 */
export const DEFAULT_MAX_SIGNATURE_HEADER_LENGTH = 8 * 1024;

/** HMAC-SHA256 in hex is 64 characters; a v1 value of another length can never match. */
export const DIGEST_HEX_LENGTH = 64;

/** `,v1=` and 64 hex characters: what follows the timestamp in the form the service sends. */
const CANONICAL_TAIL_LENGTH = 4 + DIGEST_HEX_LENGTH;

export interface ParsedHeader {
  timestamp: string;
  /** As received (trimmed); validated only when none matches. */
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
export function digitsValue(value: string): number {
  let seconds = 0;
  for (let i = 0; i < value.length; i++) seconds = seconds * 10 + (value.charCodeAt(i) - 48);
  return seconds;
}

/** The value as lowercase hex, or undefined when it is empty, of odd length, or not hex. */
export function lowercaseHex(value: string): string | undefined {
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

/** `maxLength` as given, refusing (so failing closed) anything but a number ≥ 0. */
export function maxLengthOf(maxLength: unknown): number {
  if (maxLength === undefined) return DEFAULT_MAX_SIGNATURE_HEADER_LENGTH;
  if (typeof maxLength !== 'number' || !(maxLength >= 0)) {
    fail('malformed_header', 'maxHeaderLength must be a number of characters, 0 or more');
  }
  return maxLength;
}

function tooLong(maxLength: number): never {
  return fail('malformed_header', `the signature header is longer than ${maxLength} characters (maxHeaderLength)`);
}

/**
 * The header as one string, refused before anything else reads it when missing, empty, not a
 * string, or longer than `maxLength`.
 */
export function headerValue(signatureHeader: unknown, maxLength: number): string {
  if (typeof signatureHeader === 'string') {
    if (signatureHeader.length > maxLength) tooLong(maxLength);
    if (signatureHeader.length === 0 || (isSpace(signatureHeader.charCodeAt(0)) && signatureHeader.trim() === '')) {
      fail('missing_header', 'the X-Service-Signature header is empty');
    }
    return signatureHeader;
  }
  // Node gives string[] when a header is repeated; the items are joined as one list.
  if (Array.isArray(signatureHeader) && signatureHeader.length > 0 && signatureHeader.every((item) => typeof item === 'string')) {
    // The joined length, computed before joining so that a huge list costs no copy.
    let length = signatureHeader.length - 1;
    for (const item of signatureHeader) length += item.length;
    if (length > maxLength) tooLong(maxLength);
    return headerValue(signatureHeader.join(','), maxLength);
  }
  if (signatureHeader === undefined || signatureHeader === null || Array.isArray(signatureHeader)) {
    fail('missing_header', 'the X-Service-Signature header is missing');
  }
  return fail('malformed_header', 'the signature header must be a string');
}

/**
 * The timestamp of a header in the form every delivery of the service has,
 * `t=<digits>,v1=<64 chars>`, found with one indexOf; undefined for any other layout. The v1 is
 * then `header.slice(header.length - 64)`. Only a match is trusted from this reading: anything
 * else goes to {@link parseHeader}, so a refusal's reason never depends on which path ran.
 * When {@link parseHeader} accepts such a header, its timestamp is this one (the first item is
 * `t=<digits>`, and a second t= must repeat it).
 */
export function canonicalTimestamp(header: string): string | undefined {
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
 * Reads `t=<unix>,v1=<hex>[,v1=<hex>…]` in one pass, without regular expressions and without
 * slicing keys (it runs for every header not in the exact form, and for every refusal): items
 * in any order, whitespace around items, keys and values tolerated, unknown schemes (v0, v2 …)
 * ignored. Messages never repeat the header.
 *
 * Each character is looked at a bounded number of times: the next "=" is searched for once and
 * reused by every item before it, so a header of many items without "=" (a run of commas) costs
 * one scan, not one scan per item.
 */
export function parseHeader(header: string): ParsedHeader {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  let start = 0;
  // Position of the first "=" at or after `start`, or header.length when there is none.
  let nextEq = -1;
  while (start <= header.length) {
    let end = header.indexOf(',', start);
    if (end === -1) end = header.length;
    if (nextEq < start) {
      nextEq = header.indexOf('=', start);
      if (nextEq === -1) nextEq = header.length;
    }
    const eq = nextEq;
    let keyStart = start;
    start = end + 1;
    if (eq >= end) {
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
