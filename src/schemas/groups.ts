import { z } from 'zod';
import { lazy } from './lazy.js';
import { openEnum } from './common.js';

/** SIM group (spec part 2); name is an exact, case-sensitive key. */
export const simGroupSchema = lazy(() => z.looseObject({
  name: z.string(),
  spendLimit: z.number(),
  dataQuota: z.number(),
  currency: z.string(),
  dataUnit: z.string(),
}));

export type SimGroup = z.infer<ReturnType<typeof simGroupSchema>>;

/** User group deletion (spec part 2): a soft delete, status DELETED. */
export const userGroupDeletionSchema = lazy(() => z.looseObject({
  name: z.string(),
  status: openEnum(['DELETED'] as const),
}));

export type UserGroupDeletion = z.infer<ReturnType<typeof userGroupDeletionSchema>>;
