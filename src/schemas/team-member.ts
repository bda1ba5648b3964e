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
  departments: z.array(z.unknown()).optional(),
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
 * Body of POST /api/v1.1/team-members: not shown. The team member's own fields: email is
 * required (it is the member's key), name, role and departments are passed when given.
 */
export const teamMemberCreateParamsSchema = z.looseObject({
  email: z.email(),
  name: z.string().min(1).optional(),
  role: z.string().min(1).optional(),
  departments: z.array(z.unknown()).optional(),
});

export type TeamMemberCreateParams = z.input<typeof teamMemberCreateParamsSchema>;

/** Create answer: not shown; typed as a team member whose fields may be partial. */
export const teamMemberCreatedSchema = teamMemberSchema.partial().extend({ email: z.string() });

export type TeamMemberCreated = z.infer<typeof teamMemberCreatedSchema>;
