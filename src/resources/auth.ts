import { ApiPromise } from '../core/api-promise.js';
import type { ApiResult, RequestOptions, Transport } from '../core/request.js';
import type { TokenResponse } from '../schemas/token.js';
import { Resource } from './endpoint.js';

/** A transport that holds the credentials and runs the exchange itself (the built-in one does). */
interface TokenExchanger {
  exchangeToken(options?: RequestOptions): Promise<ApiResult<TokenResponse>>;
}

/**
 * POST /api/v1.1/auth/token (the path is `TOKEN_PATH` of core/auth.ts). Normally automatic: the
 * client exchanges and refreshes on its own. The transport owns the exchange, so the route, its
 * schema and the credentials live in one place.
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
