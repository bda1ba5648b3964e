import type { ApiPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request.js';
import {
  type TeamMember,
  type TeamMemberCreated,
  type TeamMemberCreateParams,
  type TeamMemberDetail,
  type TeamMemberListParams,
  teamMemberCreatedSchema,
  teamMemberCreateParamsSchema,
  teamMemberDetailSchema,
  teamMemberListParamsSchema,
  teamMemberListSchema,
} from '../schemas/team-member.js';
import { type Endpoint, Resource } from './endpoint.js';

const listTeamMembers: Endpoint<TeamMember[]> = {
  operation: 'teamMembers.list',
  method: 'GET',
  path: '/api/v1.1/team-members',
  get schema() {
    return teamMemberListSchema();
  },
  get query() {
    return teamMemberListParamsSchema();
  },
};

const retrieveTeamMember: Endpoint<TeamMemberDetail> = {
  operation: 'teamMembers.retrieve',
  method: 'GET',
  path: '/api/v1.1/team-members/{email}',
  get schema() {
    return teamMemberDetailSchema();
  },
};

const createTeamMember: Endpoint<TeamMemberCreated> = {
  operation: 'teamMembers.create',
  method: 'POST',
  path: '/api/v1.1/team-members',
  get schema() {
    return teamMemberCreatedSchema();
  },
  get body() {
    return teamMemberCreateParamsSchema();
  },
};

/**
 * Account admins (not end users: see `users`).
 *
 * @group Resources
 */
export class TeamMembers extends Resource {
  /** A page of team members; `for await` walks all of them. */
  list(params?: TeamMemberListParams, options?: RequestOptions): PagePromise<TeamMember> {
    return this.paginate(listTeamMembers, params, options);
  }

  /** 404 ADMIN_NOT_FOUND when no member has this email. */
  retrieve(email: string, options?: RequestOptions): ApiPromise<TeamMemberDetail> {
    return this.call(retrieveTeamMember, { params: { email }, options });
  }

  /** Invites a member; 422 INVALID_ROLE / INVALID_DEPARTMENT, 409 ADMIN_ALREADY_EXISTS. */
  create(body: TeamMemberCreateParams, options?: RequestOptions): ApiPromise<TeamMemberCreated> {
    return this.call(createTeamMember, { body, options });
  }
}
