import type { ApiPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { TransactionHandle } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import {
  type PortIn,
  type PortInEligibility,
  type PortInEligibilityParams,
  type PortInListParams,
  type PortInSubmitParams,
  portInEligibilityParamsSchema,
  portInEligibilitySchema,
  portInListParamsSchema,
  portInListSchema,
} from '../schemas/port-in.js';
import { type Endpoint, Resource } from './endpoint.js';
import { ASYNC_OPERATIONS, type PortInResult } from './async-operations.js';

const listPortIns: Endpoint<PortIn[]> = {
  operation: 'portIns.list',
  method: 'GET',
  path: '/api/v1.1/port-ins',
  get schema() {
    return portInListSchema();
  },
  get query() {
    return portInListParamsSchema();
  },
};

const checkEligibility: Endpoint<PortInEligibility> = {
  operation: 'portIns.checkEligibility',
  method: 'POST',
  path: '/api/v1.1/port-in/eligibility',
  get schema() {
    return portInEligibilitySchema();
  },
  get body() {
    return portInEligibilityParamsSchema();
  },
  auth: false,
};

/**
 * `client.portIns`: bringing numbers from another operator: eligibility, submission (asynchronous) and the list of port-ins.
 *
 * @group Resources
 */
export class PortIns extends Resource {
  /** A page of port-ins; `for await` walks all of them. */
  list(params?: PortInListParams, options?: RequestOptions): PagePromise<PortIn> {
    return this.paginate(listPortIns, params, options);
  }

  /** Whether a number can be ported in; sent without a bearer (spec part 5 rule 4). */
  checkEligibility(body: PortInEligibilityParams, options?: RequestOptions): ApiPromise<PortInEligibility> {
    return this.call(checkEligibility, { body, options });
  }

  /** Submits a port-in (v3, Admin tier); resolves to a handle to `wait()` on. */
  submit(body: PortInSubmitParams, options?: RequestOptions): ApiPromise<TransactionHandle<PortInResult>> {
    return this.start(ASYNC_OPERATIONS['portIns.submit'], { body, options });
  }
}
