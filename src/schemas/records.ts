import { z } from 'zod';
import { lazy } from './lazy.js';
import { paginationParams } from './common.js';

/**
 * Records whose fields the spec does not show (user, order): open objects, every field kept,
 * with the identifying fields the spec's paths imply typed when present.
 */
export const userSchema = lazy(() => z.looseObject({
  email: z.string().optional(),
  name: z.string().optional(),
}));

export type User = z.infer<ReturnType<typeof userSchema>>;

export const userListSchema = lazy(() => z.array(userSchema()));

/** Filters of the user list are not shown: pagination is checked, other parameters pass through. */
export const userListParamsSchema = lazy(() => z.object(paginationParams()).catchall(z.union([z.string(), z.number(), z.boolean()])));

export type UserListParams = z.input<ReturnType<typeof userListParamsSchema>>;

export const orderSchema = lazy(() => z.looseObject({
  id: z.string().optional(),
  orderId: z.string().optional(),
  status: z.string().optional(),
}));

export type Order = z.infer<ReturnType<typeof orderSchema>>;
