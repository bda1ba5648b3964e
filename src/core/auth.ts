import type { TokenResponse } from '../schemas/token.js';
import { raceAbort } from './sleep.js';

/** Refresh this long before expiry, or 10 % of the lifetime for short-lived tokens. */
const REFRESH_MARGIN_MS = 60_000;

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
  constructor(
    exchange: () => Promise<TokenResponse>,
    onToken: (token: string | undefined, previous: string | undefined) => void = () => {},
  ) {
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
      // The lifetime in seconds is immune to a skew between our clock and the server's, which
      // `expires_at` is not: a clock an hour fast would otherwise exchange on every call.
      const expiresAt =
        Number.isFinite(response.expires_in) && response.expires_in > 0
          ? now + response.expires_in * 1000
          : Date.parse(response.expires_at);
      const lifetimeMs = Number.isNaN(expiresAt) ? 0 : Math.max(0, expiresAt - now);
      const previous = this.#token;
      this.#token = response.access_token;
      this.#refreshAt = now + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs * 0.1);
      this.#onToken(this.#token, previous);
      return response.access_token;
    } finally {
      this.#inflight = undefined;
    }
  }
}
