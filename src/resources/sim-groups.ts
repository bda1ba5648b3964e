import type { ApiPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request.js';
import { type SimGroup, simGroupSchema } from '../schemas/groups.js';
import { type Endpoint, Resource } from './endpoint.js';

const retrieveSimGroup: Endpoint<SimGroup> = {
  operation: 'simGroups.retrieve',
  method: 'GET',
  path: '/api/v1.1/sim-groups/{name}',
  get schema() {
    return simGroupSchema();
  },
};

/**
 * `client.simGroups`: named groups of SIMs.
 *
 * @group Resources
 */
export class SimGroups extends Resource {
  /** By exact, case-sensitive name; 404 SIM_GROUP_NOT_FOUND. */
  retrieve(name: string, options?: RequestOptions): ApiPromise<SimGroup> {
    return this.call(retrieveSimGroup, { params: { name }, options });
  }
}
