import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookSignatureError } from '../core/errors.js';
import { toRawBytes, type RawBody } from './raw-body.js';
import {
  canonicalTimestamp,
  digitsValue,
  DIGEST_HEX_LENGTH,
  headerValue,
  lowercaseHex,
  maxLengthOf,
  parseHeader,
} from './signature-header.js';

/** One signing secret, or several while a secret is being rotated (any of them may match). */
export type WebhookSecret = string | readonly string[];

export interface VerifyOptions {
  /** Largest accepted distance, in either direction, between the signed timestamp and now. Default 300 (spec part 6 rule 3). */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
  /**
   * Longest signature header read, in characters; a longer one is refused as `malformed_header`
   * before it is parsed. Default {@link DEFAULT_MAX_SIGNATURE_HEADER_LENGTH} (8 KiB).
   */
  maxHeaderLength?: number;
}

export interface VerifiedSignature {
  /** The signed timestamp, unix seconds. */
  timestamp: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

function fail(reason: WebhookSignatureError['reason'], message: string): never {
  throw new WebhookSignatureError(reason, message);
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
  const header = headerValue(signatureHeader, maxLengthOf(options?.maxHeaderLength));
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
