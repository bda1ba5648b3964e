import { hmacSha256Hex } from './hmac.js';
import { WebhookSignatureError } from '../core/errors.js';
import { toRawBytes, type RawBody } from './raw-body.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { OptionNames } from '../shared/option-names.js';

/** Options of {@link signPayload}. */
export interface SignOptions {
  /** Unix seconds to sign with; default now. */
  timestamp?: number;
}

const SIGN_OPTION_NAMES = { timestamp: true } as const satisfies OptionNames<SignOptions>;

/**
 * 11 digits of seconds reach the year 5138, while Date.now() has had 13 digits since 2001: a
 * larger timestamp is milliseconds passed by mistake, which would only fail later, in the
 * receiver under test, as timestamp_out_of_tolerance.
 */
const LATEST_PLAUSIBLE_SECONDS = 99_999_999_999;

/**
 * Builds the `X-Service-Signature` value the service would send for this body (spec part 6),
 * so partners can test their receivers: `t=<unix>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>">`.
 * With several secrets, one v1 per secret, as during a rotation.
 */
export function signPayload(rawBody: RawBody, secret: string | readonly string[], options: SignOptions = {}): string {
  refuseUnknownOptions(options, SIGN_OPTION_NAMES, 'signPayload');
  const body = toRawBytes(rawBody);
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((item) => typeof item !== 'string' || item.length === 0)) {
    throw new WebhookSignatureError('invalid_secret', 'every signing secret must be a non-empty string');
  }
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new WebhookSignatureError('malformed_header', 'timestamp must be a non-negative integer of unix seconds');
  }
  if (timestamp > LATEST_PLAUSIBLE_SECONDS) {
    throw new WebhookSignatureError('malformed_header', 'timestamp is unix seconds; this one looks like milliseconds (Date.now()): divide by 1000');
  }
  const prefix = `${timestamp}.`;
  const signatures = secrets.map((key) => `v1=${hmacSha256Hex(key, prefix, body)}`);
  return `t=${timestamp},${signatures.join(',')}`;
}
