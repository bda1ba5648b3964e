import { ConfigurationError } from './errors.js';
import { isLoopbackHostname } from '../shared/loopback.js';

const REDACTED = '[REDACTED]';

/** How many replaced access tokens stay on the redaction list (see Scrubber.retire). */
const RETIRED_SECRETS_KEPT = 16;

/** Header names whose values are credentials. */
const secretHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/** Refuses plain http:// to anything but loopback unless explicitly allowed; nothing has been sent yet. */
export function assertSecureBaseUrl(url: URL, allowInsecureHttp: boolean): void {
  if (url.protocol === 'https:') return;
  if (url.protocol !== 'http:') {
    throw new ConfigurationError(`baseUrl must use https:// (got ${url.protocol})`);
  }
  if (allowInsecureHttp || isLoopbackHostname(url.hostname)) return;
  throw new ConfigurationError(
    `refusing to send credentials over plain http:// to ${url.hostname}; use https:// or set allowInsecureHttp: true`,
    'INSECURE_TRANSPORT',
  );
}

/** A copy of request headers fit for a log line. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    out[name] = secretHeaders.has(name.toLowerCase()) ? REDACTED : (headers[name] as string);
  }
  return out;
}

/**
 * Removes known secret values (key, secret, access token) from text a server or a library
 * produced, before it reaches an error or a log. Used on error paths only.
 */
export class Scrubber {
  readonly #secrets = new Set<string>();
  /** Replaced tokens still scrubbed, oldest first. */
  readonly #retired: string[] = [];

  add(value: string | undefined): void {
    // Very short values would blank out ordinary words; real credentials are long.
    if (value && value.length >= 6) this.#secrets.add(value);
  }

  delete(value: string | undefined): void {
    if (value) this.#secrets.delete(value);
  }

  /**
   * A token that was replaced stays scrubbed while calls that carried it may still be in flight
   * and see it echoed: the last RETIRED_SECRETS_KEPT replaced tokens are kept. Tokens are replaced
   * once per lifetime (an hour or so), far apart compared with any call's deadline.
   */
  retire(value: string | undefined): void {
    if (!value || !this.#secrets.has(value) || this.#retired.includes(value)) return;
    this.#retired.push(value);
    if (this.#retired.length > RETIRED_SECRETS_KEPT) this.delete(this.#retired.shift());
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }

  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    // Nested deeper than any answer of the API: replaced whole, neither kept unscrubbed nor walked without bound.
    if (depth > 8) return REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) out[name] = this.value(item, depth + 1);
    return out;
  }
}
