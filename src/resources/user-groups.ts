import type { ApiPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request.js';
import { type UserGroupDeletion, userGroupDeletionSchema } from '../schemas/groups.js';
import { type Endpoint, Resource } from './endpoint.js';

const deleteUserGroup: Endpoint<UserGroupDeletion> = {
  operation: 'userGroups.delete',
  method: 'DELETE',
  path: '/api/v1.1/user-groups/{name}',
  get schema() {
    return userGroupDeletionSchema();
  },
  idempotent: true,
};

/**
 * `client.userGroups`: named groups of end users.
 *
 * @group Resources
 */
export class UserGroups extends Resource {
  /** Soft delete by exact, case-sensitive name: status DELETED. */
  delete(name: string, options?: RequestOptions): ApiPromise<UserGroupDeletion> {
    return this.call(deleteUserGroup, { params: { name }, options });
  }
}
