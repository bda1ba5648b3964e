import { WebhookSignatureError } from '../core/errors.js';

/** The exact bytes of a delivery as a receiver may hold them. */
export type RawBody = string | Uint8Array | ArrayBuffer;

const RAW_BODY_HELP =
  'rawBody must be the exact bytes received (a string, Buffer or Uint8Array), because the signature covers ' +
  'those bytes and a re-serialized parse never matches them (spec part 6, verification rule 1). ';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'a parsed object' : `a ${typeof value}`;
}

/**
 * Turns an accepted raw body into something `Hmac.update` takes without copying, or refuses
 * it with the explanation partners most often need: a JSON body parser ran before verification.
 */
export function toRawBytes(rawBody: unknown): string | Uint8Array {
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  const parsed = typeof rawBody === 'object' && rawBody !== null;
  throw new WebhookSignatureError(
    'invalid_body',
    `${RAW_BODY_HELP}Got ${describe(rawBody)}.${
      parsed
        ? ' A JSON body parser already consumed the request: on Express mount express.raw({ type: "application/json" }) ' +
          'on the webhook route, or keep the bytes with express.json({ verify: (req, res, buf) => { req.rawBody = buf } }); ' +
          'in a fetch handler use await request.text() or request.arrayBuffer(), never request.json().'
        : ''
    }`,
  );
}
