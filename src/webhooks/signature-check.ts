import { DEFAULT_TOLERANCE_SECONDS } from '../core/defaults.js';
import { WebhookSignatureError } from '../core/errors.js';
import type { OptionNames } from '../shared/option-names.js';
import { canonicalTimestamp, digitsValue, DIGEST_HEX_LENGTH, headerValue, lowercaseHex, maxLengthOf, parseHeader } from './signature-header.js';

/**
 * The checks of a delivery's signature (spec part 6), shared by `verifySignature` (Node's crypto)
 * and `verifySignatureAsync` (Web Crypto): each only computes the HMACs between
 * {@link beginCheck} and {@link finishCheck}, so the two cannot disagree on what they accept or
 * on the reason of a refusal. Nothing here needs a Node module.
 */

/** One signing secret, or several while a secret is being rotated (any of them may match). */
export type WebhookSecret = string | readonly string[];

/**
 * The secret as `verifySignature` and `constructEvent` take it: the value, or a synchronous
 * function returning it, called for each verification (for secrets rotated in place).
 */
export type WebhookSecretSource = WebhookSecret | (() => WebhookSecret);

/**
 * The secret as the adapters and the async forms take it: the value, or a function returning
 * it or a promise of it, called for each delivery (for example a cached read from a secret manager).
 */
export type AsyncWebhookSecretSource = WebhookSecret | (() => WebhookSecret | PromiseLike<WebhookSecret>);

/** Options of {@link verifySignature} and {@link verifySignatureAsync}. */
export interface VerifyOptions {
  /** Largest accepted distance, in either direction, between the signed timestamp and now. Default 300 (spec part 6, verification rule 3). */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
  /**
   * Longest signature header read, in characters; a longer one is refused as `malformed_header`
   * before it is parsed. Default `DEFAULT_MAX_SIGNATURE_HEADER_LENGTH` (8 KiB).
   */
  maxHeaderLength?: number;
}

/** The names {@link VerifyOptions} takes, refused otherwise (ConfigurationError). */
export const VERIFY_OPTION_NAMES = { toleranceSeconds: true, now: true, maxHeaderLength: true } as const satisfies OptionNames<VerifyOptions>;

/** What a successful verification tells: when the delivery was signed, and with which secret. */
export interface VerifiedSignature {
  /** The signed timestamp, unix seconds. */
  timestamp: number;
}

export { DEFAULT_TOLERANCE_SECONDS };

function fail(reason: WebhookSignatureError['reason'], message: string): never {
  throw new WebhookSignatureError(reason, message);
}

/** Refuses a missing or empty secret, or a list holding one; shared with the adapters, which check at creation. */
export function checkSecrets(secret: unknown): asserts secret is WebhookSecret {
  if (typeof secret === 'string' && secret.length > 0) return;
  const list: readonly unknown[] = Array.isArray(secret) ? secret : [];
  if (list.length === 0) fail('invalid_secret', 'no signing secret was given: pass the signingSecret of the webhook registration');
  for (const item of list) {
    if (typeof item !== 'string' || item.length === 0) fail('invalid_secret', 'every signing secret must be a non-empty string');
  }
}

/**
 * The error for a secret function that threw or rejected. What it threw is kept as `cause` (not
 * enumerable, as a native cause is) for the receiver's own logs; it is never part of the message,
 * `toJSON()` or the inspection, since a secret manager's error may quote what it was asked for.
 */
function secretFunctionFailed(cause: unknown): WebhookSignatureError {
  const error = new WebhookSignatureError('invalid_secret', 'the signing-secret function threw or rejected; see error.cause');
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  return error;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The secret of a {@link WebhookSecretSource}, unchecked (see {@link beginCheck}). */
export function resolveSecret(source: unknown): unknown {
  if (typeof source !== 'function') return source;
  let value: unknown;
  try {
    value = (source as () => unknown)();
  } catch (error) {
    throw secretFunctionFailed(error);
  }
  if (isThenable(value)) {
    // Nobody else will ever wait for it: a rejection must not become an unhandled one.
    void Promise.resolve(value).catch(() => undefined);
    fail(
      'invalid_secret',
      'the signing-secret function returned a promise, and verifySignature and constructEvent are synchronous: ' +
        'use verifySignatureAsync or constructEventAsync, or an adapter',
    );
  }
  return value;
}

/** The secret of an {@link AsyncWebhookSecretSource}, unchecked (see {@link beginCheck}). */
export async function resolveSecretAsync(source: unknown): Promise<unknown> {
  if (typeof source !== 'function') return source;
  try {
    return await (source as () => unknown)();
  } catch (error) {
    throw secretFunctionFailed(error);
  }
}

/** What is known of a delivery once its header is read, before any HMAC is computed. */
export interface SignatureCheck {
  /** The signed timestamp as received (digits). */
  timestamp: string;
  /** `<t>.`, what precedes the raw body in the signed message. */
  prefix: string;
  /** Every secret to try; the caller computes one digest per secret, in this order. */
  secrets: readonly string[];
  header: string;
  /**
   * The v1 values of a header read the general way; undefined for the form the service sends,
   * whose one v1 is trusted only if it matches (otherwise the header is parsed in full, so a
   * refusal's reason never depends on the form).
   */
  candidates: readonly string[] | undefined;
}

/**
 * Checks the secret and reads the header. Throws every refusal that needs no HMAC.
 */
export function beginCheck(signatureHeader: unknown, secret: unknown, options: VerifyOptions | undefined): SignatureCheck {
  checkSecrets(secret);
  const header = headerValue(signatureHeader, maxLengthOf(options?.maxHeaderLength));
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const canonical = canonicalTimestamp(header);
  if (canonical !== undefined) return { timestamp: canonical, prefix: `${canonical}.`, secrets, header, candidates: undefined };
  const { timestamp, signatures } = parseHeader(header);
  return { timestamp, prefix: `${timestamp}.`, secrets, header, candidates: signatures };
}

/**
 * Whether `candidate` is `digest`, compared without an early exit; only the length, public
 * anyway, is compared in variable time. Characters are compared by their low byte, as HTTP carries
 * header values: a character beyond latin1 is, like uppercase hex, only another spelling of the
 * valid signature, which nobody without the valid signature can write.
 */
function equalsDigest(digest: string, candidate: string): boolean {
  return candidate.length === DIGEST_HEX_LENGTH && equalsDigestAt(digest, candidate, 0);
}

/** {@link equalsDigest} for the 64 characters of `text` from `offset`, read in place. */
function equalsDigestAt(digest: string, text: string, offset: number): boolean {
  // A local bound: an imported binding may be a getter in a CommonJS build, read on every turn.
  const length = DIGEST_HEX_LENGTH;
  let difference = 0;
  for (let i = 0; i < length; i++) difference |= (digest.charCodeAt(i) ^ text.charCodeAt(offset + i)) & 0xff;
  return difference === 0;
}

/** Whether the v1 of a header in the service's form is any of the digests; every digest is compared. */
function canonicalMatches(digests: readonly string[], header: string): boolean {
  const offset = header.length - DIGEST_HEX_LENGTH;
  let matched = false;
  for (let d = 0; d < digests.length; d++) if (equalsDigestAt(digests[d] as string, header, offset)) matched = true;
  return matched;
}

/** Whether any candidate is any digest; every pair is compared, matched or not. */
function anyMatches(digests: readonly string[], candidates: readonly string[]): boolean {
  let matched = false;
  for (let d = 0; d < digests.length; d++) {
    const digest = digests[d] as string;
    for (let c = 0; c < candidates.length; c++) if (equalsDigest(digest, candidates[c] as string)) matched = true;
  }
  return matched;
}

/**
 * Runs only when no candidate matched as received: a v1 that is not hex makes the header
 * malformed; uppercase hex is given a second chance in lowercase. Keeping this off the happy
 * path keeps every successful verification free of per-character validation.
 */
function explainMismatch(digests: readonly string[], candidates: readonly string[]): boolean {
  const normalized: string[] = [];
  for (const candidate of candidates) {
    const hex = lowercaseHex(candidate);
    if (hex === undefined) fail('malformed_header', 'a v1 signature in the signature header is not an even-length hex string');
    if (hex !== candidate) normalized.push(hex);
  }
  return normalized.length > 0 && anyMatches(digests, normalized);
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
 * Says which way the signed timestamp is off, and by how much: a sender whose clock runs ahead (a
 * sandbox with a scaled or advanced clock) is told apart from a delivery held back or replayed.
 */
function outOfTolerance(skewSeconds: number, tolerance: number): string {
  const by = Math.abs(skewSeconds) > 1e12 ? 'more than 10^12' : String(Math.round(Math.abs(skewSeconds)));
  return skewSeconds > 0
    ? `the signed timestamp is ${by} s ahead of this receiver's clock (tolerance ${tolerance} s): the sender's clock runs ahead; against a sandbox with a scaled clock, pass its clock as now`
    : `the signed timestamp is ${by} s behind this receiver's clock (tolerance ${tolerance} s): a delivery replayed or held back, or a sender's clock that runs behind`;
}

/**
 * Decides, given `digests[i]`: the lowercase hex HMAC-SHA256 keyed with `check.secrets[i]` of
 * `check.prefix` followed by the raw body. The timestamp is checked after the signature, so that
 * an authentic but stale delivery (replay, clock skew) is told apart from a forgery.
 */
export function finishCheck(check: SignatureCheck, digests: readonly string[], options: VerifyOptions | undefined): VerifiedSignature {
  let matched = check.candidates === undefined && canonicalMatches(digests, check.header);
  if (!matched) {
    // For the service's form, parsing in full finds the same timestamp (see canonicalTimestamp), so the digests still hold.
    const candidates = check.candidates ?? parseHeader(check.header).signatures;
    matched = anyMatches(digests, candidates) || explainMismatch(digests, candidates);
  }
  if (!matched) fail('signature_mismatch', 'no v1 signature matches the body with the given signing secret(s)');

  const signedAt = digitsValue(check.timestamp);
  const tolerance = toleranceOf(options);
  const skewSeconds = signedAt - nowSeconds(options);
  if (!(Math.abs(skewSeconds) <= tolerance)) fail('timestamp_out_of_tolerance', outOfTolerance(skewSeconds, tolerance));
  return { timestamp: signedAt };
}
