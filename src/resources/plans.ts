import type { ApiPromise } from '../core/api-promise.js';
import type { TransactionHandle } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import { type AsyncAcceptance, asyncAcceptanceSchema, openObjectSchema } from '../schemas/common.js';
import {
  type Plan,
  type PlanPurchase,
  type PlanPurchaseParams,
  planPurchaseParamsSchema,
  planPurchaseSchema,
  planSchema,
} from '../schemas/plan.js';
import { type Endpoint, Resource } from './endpoint.js';
import { transactionPollRoute } from './transactions.js';

const retrievePlan: Endpoint<Plan> = {
  method: 'GET',
  path: '/api/v1.1/plans/{planId}',
  schema: planSchema,
};

const purchasePlan: Endpoint<PlanPurchase> = {
  method: 'POST',
  path: '/api/v1.1/plans/purchase',
  schema: planPurchaseSchema,
  body: planPurchaseParamsSchema,
};

const purchasePlanAsync: Endpoint<AsyncAcceptance> = {
  method: 'POST',
  path: '/api/v3/plans/purchase',
  schema: asyncAcceptanceSchema,
  body: planPurchaseParamsSchema,
  idempotent: true,
};

/** The v3 purchase's result is not shown: an open object. */
const purchaseTransaction = transactionPollRoute(openObjectSchema);

export type PlanPurchaseResult = Record<string, unknown>;

export class Plans extends Resource {
  /** A plan by its productId (the display name, which is the id; spaces are fine). */
  retrieve(planId: string, options?: RequestOptions): ApiPromise<Plan> {
    return this.call(retrievePlan, { params: { planId }, options });
  }

  /** Synchronous purchase (v1.1); body and result shapes are not shown (open objects). */
  purchase(body: PlanPurchaseParams, options?: RequestOptions): ApiPromise<PlanPurchase> {
    return this.call(purchasePlan, { body, options });
  }

  /** Asynchronous purchase (v3): resolves to a handle to `wait()` on. */
  purchaseAsync(body: PlanPurchaseParams, options?: RequestOptions): ApiPromise<TransactionHandle<PlanPurchaseResult>> {
    return this.start(purchasePlanAsync, purchaseTransaction, { body, options });
  }
}
