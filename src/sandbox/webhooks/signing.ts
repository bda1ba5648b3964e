import { createHmac } from 'node:crypto';

/**
 * Signing of every delivery the sandbox sends (spec part 6): the `X-Service-Signature` value is
 * `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">` keyed with the secret.
 * Implemented here rather than borrowed from the SDK: the sandbox follows the spec, not the client.
 */
function signatureHeader(rawBody: string, secret: string, timestampSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${v1}`;
}

/** Headers common to every signed delivery: body type, timestamp and signature. */
export function signedHeaders(rawBody: string, secret: string, timestampSeconds: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-service-timestamp': String(timestampSeconds),
    'x-service-signature': signatureHeader(rawBody, secret, timestampSeconds),
  };
}

/** A signing secret in the spec's format: `whsec_` plus 64 hex characters (spec part 2). */
export function newSigningSecret(hex: (length: number) => string): string {
  return `whsec_${hex(64)}`;
}
