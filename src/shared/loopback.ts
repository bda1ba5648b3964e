/**
 * Loopback per RFC 6890 and RFC 6761, one rule for the client (credentials over plain http://)
 * and the sandbox (where it may listen without `exposeOnNetwork`). Imports nothing.
 */

/** An IPv4-mapped IPv6 address of 127.0.0.0/8, as WHATWG URL serialises it: `[::ffff:7f00:1]`. */
const MAPPED_LOOPBACK = /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/;

/**
 * Whether a WHATWG URL hostname is loopback: `localhost` (also in its absolute form `localhost.`),
 * 127.0.0.0/8, `[::1]` and `[::ffff:127.0.0.0/104]`. WHATWG URL has already turned `0x7f.1` into
 * `127.0.0.1` and `[0:0::1]` into `[::1]`. Names that merely start or end like loopback
 * (`localhost.example.com`, `127.0.0.1.nip.io`) go through DNS and are not loopback.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === 'localhost.' || host === '[::1]' || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || MAPPED_LOOPBACK.test(host);
}
