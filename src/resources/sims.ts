import type { ApiPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import {
  type RenewNumberParams,
  type RenewNumberResult,
  renewNumberParamsSchema,
  renewNumberResultSchema,
  type Sim,
  type SimListParams,
  simListParamsSchema,
  simListSchema,
} from '../schemas/sim.js';
import { type SubscriptionDetail, subscriptionDetailSchema } from '../schemas/subscription.js';
import { type Endpoint, Resource } from './endpoint.js';

/**
 * Wire names of the SIM list's assigned-status filter and free-text search: not shown in the spec
 * (part 4), so chosen here for the client (docs/shapes.md); the sandbox reads the same names in
 * its own routes/sims.ts.
 */
const SIM_LIST_QUERY_NAMES = {
  assignedStatus: 'assignedStatus',
  search: 'search',
} as const;

const listSims: Endpoint<Sim[]> = {
  operation: 'sims.list',
  method: 'GET',
  path: '/api/v1.1/sims',
  get schema() {
    return simListSchema();
  },
  get query() {
    return simListParamsSchema();
  },
  queryNames: SIM_LIST_QUERY_NAMES,
};

const retrieveSubscription: Endpoint<SubscriptionDetail> = {
  operation: 'sims.retrieveSubscription',
  method: 'GET',
  path: '/api/v1.1/sims/{iccid}/subscription',
  get schema() {
    return subscriptionDetailSchema();
  },
};

const renewNumber: Endpoint<RenewNumberResult> = {
  operation: 'sims.renewNumber',
  method: 'POST',
  path: '/api/v1.1/sims/{iccid}/renew-number',
  get schema() {
    return renewNumberResultSchema();
  },
  get body() {
    return renewNumberParamsSchema();
  },
};

/**
 * `client.sims`: the account's SIMs and eSIMs, their subscriptions and phone numbers.
 *
 * @group Resources
 */
export class Sims extends Resource {
  /** A page of SIMs; `for await` walks all of them. */
  list(params?: SimListParams, options?: RequestOptions): PagePromise<Sim> {
    return this.paginate(listSims, params, options);
  }

  /** The SIM's current subscription, or the newest SCHEDULED one (spec part 3 rule 2). */
  retrieveSubscription(iccid: string, options?: RequestOptions): ApiPromise<SubscriptionDetail> {
    return this.call(retrieveSubscription, { params: { iccid }, options });
  }

  /** Assigns the SIM a new phone number; the body and result shapes are not shown (open objects). Without a body, none is sent. */
  renewNumber(iccid: string, body?: RenewNumberParams, options?: RequestOptions): ApiPromise<RenewNumberResult> {
    return this.call(renewNumber, { params: { iccid }, body, options });
  }
}
