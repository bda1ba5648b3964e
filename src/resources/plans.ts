import type { ApiPromise } from '../core/api-promise.js';
import type { TransactionHandle } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import { type Plan, type PlanPurchase, type PlanPurchaseParams, planPurchaseParamsSchema, planPurchaseSchema, planSchema } from '../schemas/plan.js';
import { type Endpoint, Resource } from './endpoint.js';
import { ASYNC_OPERATIONS, type PlanPurchaseResult } from './async-operations.js';

const retrievePlan: Endpoint<Plan> = {
  operation: 'plans.retrieve',
  method: 'GET',
  path: '/api/v1.1/plans/{planId}',
  get schema() {
    return planSchema();
  },
};

const purchasePlan: Endpoint<PlanPurchase> = {
  operation: 'plans.purchase',
  method: 'POST',
  path: '/api/v1.1/plans/purchase',
  get schema() {
    return planPurchaseSchema();
  },
  get body() {
    return planPurchaseParamsSchema();
  },
};

/**
 * `client.plans`: the plan catalogue and plan purchases (synchronous v1.1, asynchronous v3).
 *
 * @group Resources
 */
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
    return this.start(ASYNC_OPERATIONS['plans.purchaseAsync'], { body, options });
  }
}
