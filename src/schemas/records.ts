import { z } from 'zod';
import { paginationParamsSchema } from './common.js';

/**
 * Records whose fields the spec does not show (user, order): open objects, every field kept,
 * with the identifying fields the spec's paths imply typed when present.
 */
export const userSchema = z.looseObject({
  email: z.string().optional(),
  name: z.string().optional(),
});

export type User = z.infer<typeof userSchema>;

export const userListSchema = z.array(userSchema);

export const userListParamsSchema = paginationParamsSchema;

export type UserListParams = z.input<typeof userListParamsSchema>;

export const orderSchema = z.looseObject({
  id: z.string().optional(),
  orderId: z.string().optional(),
  status: z.string().optional(),
});

export type Order = z.infer<typeof orderSchema>;
