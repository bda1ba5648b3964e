import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { answerObject, openEnum } from './common.js';

/** SIM group (spec part 2); name is an exact, case-sensitive key. */
export const simGroupSchema = lazy(() =>
  answerObject({
    /** The group's exact, case-sensitive name: its id. */
    name: z.string(),
    /** The group's spend limit, in `currency`. */
    spendLimit: z.number(),
    /** The group's data quota, in `dataUnit`. */
    dataQuota: z.number(),
    /** The currency of `spendLimit`. */
    currency: z.string(),
    /** The unit of `dataQuota`, e.g. `GB`. */
    dataUnit: z.string(),
  }),
);

/** A SIM group, keyed by its exact, case-sensitive name (spec part 2). */
export interface SimGroup extends z.infer<ReturnType<typeof simGroupSchema>> {}

/** User group deletion (spec part 2): a soft delete, status DELETED. */
export const userGroupDeletionSchema = lazy(() =>
  answerObject({
    /** The deleted group's name. */
    name: z.string(),
    /** `DELETED`: a soft delete. */
    status: openEnum(['DELETED'] as const),
  }),
);

/** Result of a user group soft delete: status DELETED (spec part 2). */
export interface UserGroupDeletion extends z.infer<ReturnType<typeof userGroupDeletionSchema>> {}
