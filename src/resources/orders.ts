import type { ApiPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request.js';
import { type Order, orderSchema } from '../schemas/records.js';
import { type Endpoint, Resource } from './endpoint.js';

const retrieveOrder: Endpoint<Order> = {
  operation: 'orders.retrieve',
  method: 'GET',
  path: '/api/v1.1/orders/{id}',
  get schema() {
    return orderSchema();
  },
};

/**
 * `client.orders`: order records.
 *
 * @group Resources
 */
export class Orders extends Resource {
  /** An order record; its fields are not shown in the spec (an open object). 404 NOT_FOUND. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<Order> {
    return this.call(retrieveOrder, { params: { id }, options });
  }
}
