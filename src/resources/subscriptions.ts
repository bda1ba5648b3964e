import type { ApiPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import {
  type Subscription,
  type SubscriptionCancellation,
  type SubscriptionListParams,
  subscriptionCancellationSchema,
  subscriptionListParamsSchema,
  subscriptionListSchema,
} from '../schemas/subscription.js';
import { type Endpoint, Resource } from './endpoint.js';

const listSubscriptions: Endpoint<Subscription[]> = {
  operation: 'subscriptions.list',
  method: 'GET',
  path: '/api/v1.1/subscriptions',
  get schema() {
    return subscriptionListSchema();
  },
  get query() {
    return subscriptionListParamsSchema();
  },
};

const cancelSubscription: Endpoint<SubscriptionCancellation> = {
  operation: 'subscriptions.cancel',
  method: 'POST',
  path: '/api/v1.1/subscriptions/{iccid}/cancel',
  get schema() {
    return subscriptionCancellationSchema();
  },
  idempotent: true,
};

/**
 * `client.subscriptions`: the subscriptions of the account's lines, and their cancellation.
 *
 * @group Resources
 */
export class Subscriptions extends Resource {
  /** A page of subscriptions; the default filter ACTIVE also returns PENDING and CANCEL_SCHEDULED (spec part 3 rule 1). */
  list(params?: SubscriptionListParams, options?: RequestOptions): PagePromise<Subscription> {
    return this.paginate(listSubscriptions, params, options);
  }

  /** Cancels at the end of the current billing period (typically CANCEL_SCHEDULED); 409 on repeat. */
  cancel(iccid: string, options?: RequestOptions): ApiPromise<SubscriptionCancellation> {
    return this.call(cancelSubscription, { params: { iccid }, options });
  }
}
