import { refuseUnknownOptions } from '../core/unknown-options.js';
import { toRawBytes, type RawBody } from './raw-body.js';
import {
  beginCheck,
  finishCheck,
  resolveSecretAsync,
  VERIFY_OPTION_NAMES,
  type AsyncWebhookSecretSource,
  type VerifiedSignature,
  type VerifyOptions,
} from './signature-check.js';

const encoder = new TextEncoder();

/** Byte → two lowercase hex digits. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function toHex(bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes);
  let hex = '';
  for (let i = 0; i < view.length; i++) hex += HEX[view[i] as number];
  return hex;
}

/** The Web Crypto of the runtime; read when a delivery is verified, never at import. */
function subtleCrypto(): SubtleCrypto {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available in this runtime: use verifySignature');
  return subtle;
}

/** `<t>.` followed by the raw body, as bytes; a string body is encoded as UTF-8, as Node's createHmac does. */
function signedMessage(prefix: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return encoder.encode(prefix + body);
  const message = new Uint8Array(prefix.length + body.byteLength);
  // The prefix is digits and a dot: one byte per character.
  for (let i = 0; i < prefix.length; i++) message[i] = prefix.charCodeAt(i);
  message.set(body, prefix.length);
  return message;
}

async function hmacHex(subtle: SubtleCrypto, key: string, message: Uint8Array<ArrayBuffer>): Promise<string> {
  const cryptoKey = await subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return toHex(await subtle.sign('HMAC', cryptoKey, message));
}

/**
 * `verifySignature` for runtimes without Node's crypto (Cloudflare Workers, Vercel Edge,
 * browsers) and anywhere else: the same checks, in the same order, with the same
 * `WebhookSignatureError` reasons, computed with Web Crypto. `secret` may also be a function
 * returning a promise of the secret (a secret manager).
 *
 * ```ts
 * const { timestamp } = await verifySignatureAsync(await request.text(), request.headers.get('x-service-signature'), secret);
 * ```
 *
 * @throws {WebhookSignatureError} (as a rejection) with a machine-readable `reason`; a
 * `ConfigurationError` for an unknown option; an `Error` only when the runtime has no Web Crypto.
 */
export async function verifySignatureAsync(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: AsyncWebhookSecretSource,
  options?: VerifyOptions,
): Promise<VerifiedSignature> {
  refuseUnknownOptions(options, VERIFY_OPTION_NAMES, 'verifySignatureAsync');
  return verifyWithWebCrypto(rawBody, signatureHeader, secret, options);
}

/** {@link verifySignatureAsync} once its options are known to be options: `constructEventAsync`'s add their own. */
export async function verifyWithWebCrypto(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: AsyncWebhookSecretSource,
  options: VerifyOptions | undefined,
): Promise<VerifiedSignature> {
  const body = toRawBytes(rawBody);
  const check = beginCheck(signatureHeader, await resolveSecretAsync(secret), options);
  const subtle = subtleCrypto();
  const message = signedMessage(check.prefix, body);
  const digests = await Promise.all(check.secrets.map((key) => hmacHex(subtle, key, message)));
  return finishCheck(check, digests, options);
}
