import type { ApiPromise } from '../core/api-promise.js';
import type { TransactionHandle } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import { type CreditBalance, creditBalanceSchema, type TopUpParams } from '../schemas/billing.js';
import { type Endpoint, Resource } from './endpoint.js';
import { ASYNC_OPERATIONS, type TopUpResult } from './async-operations.js';

const retrieveCreditBalance: Endpoint<CreditBalance> = {
  operation: 'billing.retrieveCreditBalance',
  method: 'GET',
  path: '/api/v1.1/credit-balance',
  get schema() {
    return creditBalanceSchema();
  },
};

/**
 * `client.billing`: prepaid credit balance and top-ups (a top-up moves money: see `idempotencyKey`).
 *
 * @group Resources
 */
export class Billing extends Resource {
  /** Prepaid credit per currency; 404 NOT_FOUND when the customer is missing. */
  retrieveCreditBalance(options?: RequestOptions): ApiPromise<CreditBalance> {
    return this.call(retrieveCreditBalance, { options });
  }

  /** Adds prepaid credit; resolves to a handle to `wait()` on. */
  topUp(body: TopUpParams, options?: RequestOptions): ApiPromise<TransactionHandle<TopUpResult>> {
    return this.start(ASYNC_OPERATIONS['billing.topUp'], { body, options });
  }
}
