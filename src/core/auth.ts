import type { TokenResponse } from '../schemas/token.js';
import { parseIsoTimestamp } from '../shared/iso-8601.js';
import { FALLBACK_TOKEN_LIFETIME_MS, TOKEN_REFRESH_MARGIN_MS } from './defaults.js';
import { raceAbort } from './sleep.js';

/** The token exchange's path (spec part 5): the one declaration the transport and `client.auth` both use. */
export const TOKEN_PATH = '/api/v1.1/auth/token';

/**
 * How long a new token lives, by one grammar: `expires_in` when it is a positive safe integer of
 * seconds (immune to a skew between our clock and the server's, which `expires_at` is not: a
 * clock an hour fast would otherwise exchange on every call); else `expires_at` when it is an ISO
 * instant in the future; else FALLBACK_TOKEN_LIFETIME_MS. Never NaN, never negative.
 */
function tokenLifetimeMs(response: Pick<TokenResponse, 'expires_in' | 'expires_at'>, now: number): number {
  const seconds = response.expires_in;
  if (Number.isSafeInteger(seconds) && seconds > 0) return Math.min(seconds * 1000, Number.MAX_SAFE_INTEGER - now);
  const at = response.expires_at;
  // spec part 2: an ISO 8601 instant, a date and a time with its zone.
  const expiresAt = typeof at === 'string' ? parseIsoTimestamp(at, false) : undefined;
  if (expiresAt !== undefined && expiresAt > now) return expiresAt - now;
  return FALLBACK_TOKEN_LIFETIME_MS;
}

/**
 * The bearer token (spec part 5): exchanged on first need, cached, exchanged again shortly
 * before `expires_at` (there is no refresh grant), and dropped on a 401. Concurrent callers
 * share one exchange in flight. No timer: expiry is checked when a call needs the token.
 */
export class TokenManager {
  readonly #exchange: () => Promise<TokenResponse>;
  readonly #onToken: (token: string | undefined, previous: string | undefined) => void;
  #token: string | undefined;
  #refreshAt = 0;
  #inflight: Promise<string> | undefined;

  /** `onToken` lets the transport keep its redaction list in step with the live token. */
  constructor(exchange: () => Promise<TokenResponse>, onToken: (token: string | undefined, previous: string | undefined) => void = () => {}) {
    this.#exchange = exchange;
    this.#onToken = onToken;
  }

  /** The cached token while it is comfortably valid; undefined when a call must `fetch()` one. */
  current(): string | undefined {
    return this.#token !== undefined && Date.now() < this.#refreshAt ? this.#token : undefined;
  }

  /** A fresh token: joins the exchange in flight or starts one. The caller's signal abandons only its own wait. */
  fetch(signal?: AbortSignal): Promise<string> {
    this.#inflight ??= this.#run();
    return raceAbort(this.#inflight, signal);
  }

  /** Forgets `token` after the server refused it, unless a newer token already replaced it. */
  invalidate(token: string | undefined): void {
    if (token === undefined || token !== this.#token) return;
    this.#token = undefined;
    this.#refreshAt = 0;
  }

  async #run(): Promise<string> {
    try {
      const response = await this.#exchange();
      const now = Date.now();
      const lifetimeMs = tokenLifetimeMs(response, now);
      const previous = this.#token;
      this.#token = response.access_token;
      this.#refreshAt = now + lifetimeMs - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetimeMs * 0.1);
      this.#onToken(this.#token, previous);
      return response.access_token;
    } finally {
      this.#inflight = undefined;
    }
  }
}
