import { hmacSha256Hex } from './hmac.js';
import { toRawBytes, type RawBody } from './raw-body.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import {
  beginCheck,
  finishCheck,
  resolveSecret,
  VERIFY_OPTION_NAMES,
  type VerifiedSignature,
  type VerifyOptions,
  type WebhookSecretSource,
} from './signature-check.js';

export type { VerifiedSignature, VerifyOptions, WebhookSecretSource } from './signature-check.js';

const oneDigest: string[] = [''];

/**
 * Checks a delivery's `X-Service-Signature` against the exact received bytes (spec part 6):
 * HMAC-SHA256 keyed with the signingSecret over `<t>.<raw body>`, compared in constant time,
 * then the timestamp against the tolerance in both directions. A string body is hashed as UTF-8.
 * Uses Node's crypto; `verifySignatureAsync` does the same with Web Crypto.
 *
 * `secret` is one secret, several (any may match, for rotations), or a synchronous function
 * returning either, called on each verification.
 *
 * Arguments are also checked at run time (a parsed object as body, a missing header or
 * secret, an unknown option), so plain JavaScript callers get the same clear errors.
 *
 * @throws {WebhookSignatureError} with a machine-readable `reason` for every delivery it refuses.
 * @throws `ConfigurationError` for an unknown option (`tolerance` for `toleranceSeconds`): a
 * mistake of the receiver's code, not of the delivery, so not a refusal of it.
 * @example
 * ```ts
 * import { verifySignature, WebhookSignatureError } from 'mobile-partner-sdk';
 *
 * declare const rawBody: string; // the body exactly as received
 * declare const signatureHeader: string | undefined; // X-Service-Signature
 * try {
 *   const { timestamp } = verifySignature(rawBody, signatureHeader, [process.env.NEW_SECRET ?? '', process.env.OLD_SECRET ?? '']);
 *   console.log('signed at', new Date(timestamp * 1000));
 * } catch (error) {
 *   if (error instanceof WebhookSignatureError) console.log('refused:', error.reason);
 *   else throw error;
 * }
 * ```
 */
export function verifySignature(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: WebhookSecretSource,
  options?: VerifyOptions,
): VerifiedSignature {
  refuseUnknownOptions(options, VERIFY_OPTION_NAMES, 'verifySignature');
  return verifyWithNodeCrypto(rawBody, signatureHeader, secret, options);
}

/** {@link verifySignature} once its options are known to be options: `constructEvent`'s add their own. */
export function verifyWithNodeCrypto(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: WebhookSecretSource,
  options: VerifyOptions | undefined,
): VerifiedSignature {
  const body = toRawBytes(rawBody);
  const check = beginCheck(signatureHeader, resolveSecret(secret), options);
  const { secrets, prefix } = check;
  if (secrets.length !== 1)
    return finishCheck(
      check,
      secrets.map((key) => hmacSha256Hex(key, prefix, body)),
      options,
    );
  // One secret, the usual case: a reused list spares an allocation per delivery (all of this is synchronous).
  oneDigest[0] = hmacSha256Hex(secrets[0] as string, prefix, body);
  return finishCheck(check, oneDigest, options);
}
