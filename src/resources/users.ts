import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import { type User, type UserListParams, userListParamsSchema, userListSchema } from '../schemas/records.js';
import { type Endpoint, Resource } from './endpoint.js';

/** Paginated like every list endpoint (spec part 1 rule 5); the record's fields are not shown. */
const listUsers: Endpoint<User[]> = {
  operation: 'users.list',
  method: 'GET',
  path: '/api/v1.1/users',
  get schema() {
    return userListSchema();
  },
  get query() {
    return userListParamsSchema();
  },
};

/**
 * End users (employees), to whom SIMs and devices are assigned.
 *
 * @group Resources
 */
export class Users extends Resource {
  /** A page of end users; `for await` walks all of them. */
  list(params?: UserListParams, options?: RequestOptions): PagePromise<User> {
    return this.paginate(listUsers, params, options);
  }
}
