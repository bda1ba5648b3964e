/**
 * Host names as the sandbox compares them: the `Host` header of a request, the address it listens
 * on and the names of the `allowedHosts` option, each brought to one form (lower case, no trailing
 * dot, an IPv6 address in brackets, an IPv4 address in dotted decimal) so that `LOCALHOST.`,
 * `localhost` and `127.1` compare as a browser would resolve them.
 */

/** Characters that would make `http://<text>` parse to another host than the text names (user-info, a path). */
const NOT_IN_A_HOST = /[\s/?#@\\]/;

/** `text` as a host name, or null when it is not one. `text` holds no port. */
export function normalizeHostName(text: string): string | null {
  const literal = text.includes(':') && !text.startsWith('[') ? `[${text}]` : text;
  const parsed = parseAuthority(literal);
  return parsed && parsed.port === '' ? parsed.hostname : null;
}

/** A `Host` header value (`name`, `name:port`, `[v6]:port`) as its host name, or null when it is not one. */
export function hostNameOfHeader(value: string): string | null {
  return parseAuthority(value)?.hostname ?? null;
}

function parseAuthority(text: string): { hostname: string; port: string } | null {
  if (text === '' || NOT_IN_A_HOST.test(text)) return null;
  try {
    const url = new URL(`http://${text}`);
    const hostname = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
    return hostname === '' ? null : { hostname, port: url.port };
  } catch {
    return null;
  }
}
