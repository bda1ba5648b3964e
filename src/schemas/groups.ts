import { z } from 'zod';
import { openEnum } from './common.js';

/** SIM group (spec part 2); name is an exact, case-sensitive key. */
export const simGroupSchema = z.looseObject({
  name: z.string(),
  spendLimit: z.number(),
  dataQuota: z.number(),
  currency: z.string(),
  dataUnit: z.string(),
});

export type SimGroup = z.infer<typeof simGroupSchema>;

/** User group deletion (spec part 2): a soft delete, status DELETED. */
export const userGroupDeletionSchema = z.looseObject({
  name: z.string(),
  status: openEnum(['DELETED'] as const),
});

export type UserGroupDeletion = z.infer<typeof userGroupDeletionSchema>;
