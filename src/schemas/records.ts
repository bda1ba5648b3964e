import * as z from 'zod';
import { lazy } from './lazy.js';
import { type OpenObject, openObjectSchema, paginationParams } from './common.js';

/**
 * Records whose fields the spec does not show (user, order: spec part 2): objects whose every
 * field is kept as sent, whatever its JSON value.
 */
const userSchema = openObjectSchema;

/** An end user (employee) record: its fields are not shown, every field kept as sent. */
export interface User extends OpenObject {}

export const userListSchema = lazy(() => z.array(userSchema()));

/** Filters of the user list are not shown: pagination is checked, other parameters pass through. */
export const userListParamsSchema = lazy(() => z.object(paginationParams()).catchall(z.union([z.string(), z.number(), z.boolean()])));

/** Query of `users.list()`: pagination checked, other filters passed through. */
export interface UserListParams extends z.input<ReturnType<typeof userListParamsSchema>> {}

export const orderSchema = openObjectSchema;

/** An order record: its fields are not shown, every field kept as sent. */
export interface Order extends OpenObject {}
