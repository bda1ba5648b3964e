import { z } from 'zod';
import { paginationParamsSchema, timestamp } from './common.js';

/**
 * Team member (spec part 2): an account admin, not an end user. `departments` appears only on
 * rows of Standard Admin members in the list; its element shape is not shown.
 */
export const teamMemberSchema = z.looseObject({
  name: z.string(),
  email: z.string(),
  role: z.string(),
  status: z.string(),
  departments: z.array(z.string()).optional(),
});

export type TeamMember = z.infer<typeof teamMemberSchema>;

export const teamMemberListSchema = z.array(teamMemberSchema);

/** The single-member read adds invitedAt. */
export const teamMemberDetailSchema = teamMemberSchema.extend({
  invitedAt: timestamp,
});

export type TeamMemberDetail = z.infer<typeof teamMemberDetailSchema>;

export const teamMemberListParamsSchema = paginationParamsSchema;

export type TeamMemberListParams = z.input<typeof teamMemberListParamsSchema>;

/**
 * Body of POST /api/v1.1/team-members: not shown. The team member's own fields: name, email and
 * role (for example Admin; the server answers 422 INVALID_ROLE for others), departments for
 * Standard Admin members.
 */
export const teamMemberCreateParamsSchema = z.looseObject({
  name: z.string().trim().min(1),
  email: z.email(),
  role: z.string().trim().min(1),
  departments: z.array(z.string()).optional(),
});

export type TeamMemberCreateParams = z.input<typeof teamMemberCreateParamsSchema>;

/** Create answer: not shown; typed as a team member whose fields may be partial. */
export const teamMemberCreatedSchema = teamMemberSchema.partial().extend({ email: z.string() });

export type TeamMemberCreated = z.infer<typeof teamMemberCreatedSchema>;
