import type { ApiPromise } from '../core/api-promise.js';
import type { TransactionHandle } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import { type CreditBalance, creditBalanceSchema, type TopUpParams, topUpParamsSchema } from '../schemas/billing.js';
import { notShown } from '../schemas/common.js';
import { type Endpoint, Resource } from './endpoint.js';
import { asyncOperation } from './transactions.js';

const retrieveCreditBalance: Endpoint<CreditBalance> = {
  operation: 'billing.retrieveCreditBalance',
  method: 'GET',
  path: '/api/v1.1/credit-balance',
  get schema() {
    return creditBalanceSchema();
  },
};

/** Answers 201 (not 202) with the transaction to poll (spec part 1 rule 7); the result is not shown. */
const topUp = asyncOperation({ operation: 'billing.topUp', path: '/api/v1.1/top-up', body: topUpParamsSchema }, notShown);

/** Not shown in the spec, so whatever JSON value the server sends is kept as sent. */
export type TopUpResult = unknown;

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
    return this.start(topUp, { body, options });
  }
}
