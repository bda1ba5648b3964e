import { createHmac } from 'node:crypto';

/**
 * The lowercase hex HMAC-SHA256 of `prefix` followed by `body` under `key`; strings are hashed
 * as UTF-8. Node's crypto here; the build for Workers, edge runtimes and browsers uses
 * hmac.web.ts, which computes the same digest without a Node module.
 */
export function hmacSha256Hex(key: string, prefix: string, body: string | Uint8Array): string {
  return createHmac('sha256', key).update(prefix).update(body).digest('hex');
}
