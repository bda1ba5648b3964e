import { z } from 'zod';
import { lazy } from './lazy.js';
import { paginationParamsSchema, timestamp } from './common.js';

/**
 * Team member (spec part 2): an account admin, not an end user. `departments` appears only on
 * rows of Standard Admin members in the list; its element shape is not shown.
 */
export const teamMemberSchema = lazy(() => z.looseObject({
  name: z.string(),
  email: z.string(),
  role: z.string(),
  status: z.string(),
  departments: z.array(z.string()).optional(),
}));

export type TeamMember = z.infer<ReturnType<typeof teamMemberSchema>>;

export const teamMemberListSchema = lazy(() => z.array(teamMemberSchema()));

/** The single-member read adds invitedAt. */
export const teamMemberDetailSchema = lazy(() => teamMemberSchema().extend({
  invitedAt: timestamp(),
}));

export type TeamMemberDetail = z.infer<ReturnType<typeof teamMemberDetailSchema>>;

export const teamMemberListParamsSchema = lazy(() => paginationParamsSchema());

export type TeamMemberListParams = z.input<ReturnType<typeof teamMemberListParamsSchema>>;

/**
 * Body of POST /api/v1.1/team-members: not shown. The team member's own fields: name, email and
 * role (for example Admin; the server answers 422 INVALID_ROLE for others), departments for
 * Standard Admin members.
 */
export const teamMemberCreateParamsSchema = lazy(() => z.looseObject({
  name: z.string().trim().min(1),
  email: z.email(),
  role: z.string().trim().min(1),
  departments: z.array(z.string()).optional(),
}));

export type TeamMemberCreateParams = z.input<ReturnType<typeof teamMemberCreateParamsSchema>>;

/** Create answer: not shown; typed as a team member whose fields may be partial. */
export const teamMemberCreatedSchema = lazy(() => teamMemberSchema().partial().extend({ email: z.string() }));

export type TeamMemberCreated = z.infer<ReturnType<typeof teamMemberCreatedSchema>>;
