import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { answerObject, jsonValue, notShown, notShownRecord, paginationParamsSchema, suggested, suggestedBody, timestamp } from './common.js';

/**
 * Team member (spec part 2): an account admin, not an end user. `departments` appears only on
 * rows of Standard Admin members in the list; its shape is not shown, so any JSON value is kept.
 */
const teamMemberSchema = lazy(() =>
  answerObject({
    /** The member's name. */
    name: z.string(),
    /** The member's email: the id of the single-member routes. */
    email: z.string(),
    /** The member's admin role. */
    role: z.string(),
    /** The member's status. */
    status: z.string(),
    /** On Standard Admin rows of the list only; its shape is not shown in the spec (any JSON value). */
    departments: z.optional(notShown()),
  }),
);

/** A team member (account admin, not an end user), as listed (spec part 2). */
export interface TeamMember extends z.infer<ReturnType<typeof teamMemberSchema>> {}

export const teamMemberListSchema = lazy(() => z.array(teamMemberSchema()));

/** The single-member read adds invitedAt. */
export const teamMemberDetailSchema = lazy(() =>
  z.extend(teamMemberSchema(), {
    /** When the member was invited, ISO 8601. */
    invitedAt: timestamp(),
  }),
);

/** The single team member read: adds invitedAt (spec part 2). */
export interface TeamMemberDetail extends z.infer<ReturnType<typeof teamMemberDetailSchema>> {}

export const teamMemberListParamsSchema = lazy(() => paginationParamsSchema());

/** Query of `teamMembers.list()`. */
export interface TeamMemberListParams extends z.input<ReturnType<typeof teamMemberListParamsSchema>> {}

/**
 * Body of POST /api/v1.1/team-members: not shown (spec part 4, known by name only). Suggested:
 * the team member's own fields, name, email and role (for example Admin; the server answers 422
 * INVALID_ROLE for others), and departments for Standard Admin members. The spec gives none of
 * them a format here, so each is the server's to judge, sent as given. None is required; other
 * fields pass through.
 */
export const teamMemberCreateParamsSchema = lazy(() =>
  suggestedBody({
    name: suggested<string>(),
    email: suggested<string>(),
    role: suggested<string>(),
    departments: z.optional(jsonValue()),
  }),
);

/** Body of `teamMembers.create()`: suggested fields, none required (shape not shown). */
export interface TeamMemberCreateParams extends z.input<ReturnType<typeof teamMemberCreateParamsSchema>> {}

/** Create answer: not shown; the sandbox's fields are named, every field is kept as sent. */
export const teamMemberCreatedSchema = lazy(() => notShownRecord(['name', 'email', 'role', 'status', 'invitedAt']));

/** Answer of `teamMembers.create()`: not shown; the sandbox's fields, any JSON value each (see docs/shapes.md). */
export interface TeamMemberCreated extends z.infer<ReturnType<typeof teamMemberCreatedSchema>> {}
