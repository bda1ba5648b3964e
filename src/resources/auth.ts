import { ApiPromise } from '../core/api-promise.js';
import type { ApiResult, RequestOptions, Transport } from '../core/request.js';
import type { TokenResponse } from '../schemas/token.js';
import { Resource } from './endpoint.js';

/** A transport that holds the credentials and runs the exchange itself (the built-in one does). */
interface TokenExchanger {
  exchangeToken(options?: RequestOptions): Promise<ApiResult<TokenResponse>>;
}

/**
 * `client.auth`: the token exchange (POST /api/v1.1/auth/token). Normally automatic: the client
 * exchanges before its first call and again before the token expires or after a 401. Call
 * `token()` to check a key and secret at startup.
 *
 * @group Resources
 */
export class Auth extends Resource {
  readonly #exchanger: TokenExchanger;

  /** @internal Built by {@link PartnerClient}: use `client.auth`. */
  constructor(transport: Transport & TokenExchanger) {
    super(transport);
    this.#exchanger = transport;
  }

  /** A fresh token exchange with the client's key and secret; the token response as on the wire. */
  token(options?: RequestOptions): ApiPromise<TokenResponse> {
    return new ApiPromise(this.#exchanger.exchangeToken(options));
  }
}
