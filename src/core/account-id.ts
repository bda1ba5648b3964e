/**
 * The id under which a limiter shared by a fleet keeps one account's windows: 16 hex digits
 * (64 bits) of a SHA-256 of the origin and the API key. Every process of the account derives
 * the same id; the key cannot be read back from it. Web Crypto, so it runs wherever the client does.
 */
export async function accountId(origin: string, key: string): Promise<string> {
  // A NUL cannot occur in an origin, so no origin/key pair collides with another by concatenation.
  const bytes = new TextEncoder().encode(`${origin}\u0000${key}`);
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (let i = 0; i < 8; i++) hex += (digest[i] as number).toString(16).padStart(2, '0');
  return hex;
}
