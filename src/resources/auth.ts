import { ApiPromise } from '../core/api-promise.js';
import type { ApiResult, RequestOptions, Transport } from '../core/request.js';
import { type TokenResponse, tokenResponseSchema } from '../schemas/token.js';
import { type Endpoint, Resource } from './endpoint.js';

const issueToken: Endpoint<TokenResponse> = {
  method: 'POST',
  path: '/api/v1.1/auth/token',
  schema: tokenResponseSchema,
  auth: false,
};

/** A transport that holds the credentials and can run the exchange itself (the built-in one does). */
interface TokenExchanger {
  exchangeToken(options?: RequestOptions): Promise<ApiResult<TokenResponse>>;
}

function canExchange(transport: Transport): transport is Transport & TokenExchanger {
  return typeof (transport as Partial<TokenExchanger>).exchangeToken === 'function';
}

/** POST /api/v1.1/auth/token. Normally automatic: the client exchanges and refreshes on its own. */
export class Auth extends Resource {
  /** A fresh token exchange with the client's key and secret; the token response as on the wire. */
  token(options?: RequestOptions): ApiPromise<TokenResponse> {
    if (canExchange(this.transport)) return new ApiPromise(this.transport.exchangeToken(options));
    return this.call(issueToken, { options });
  }
}
