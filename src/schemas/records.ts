import * as z from 'zod/mini';
import { object } from './objects.js';
import { lazy } from './lazy.js';
import { notShownRecord, paginationParams } from './common.js';
import { respelledName, unknownOptionMessage } from '../shared/option-names.js';

/**
 * Records whose fields the spec does not show (user, order: spec part 2): the sandbox's fields
 * are named, any JSON value each; every field is kept as sent.
 */
const userSchema = lazy(() => notShownRecord(['email', 'name', 'department', 'createdAt']));

/** An end user (employee) record: not shown; the sandbox's fields, any JSON value each (see docs/shapes.md). */
export interface User extends z.infer<ReturnType<typeof userSchema>> {}

export const userListSchema = lazy(() => z.array(userSchema()));

/**
 * Filters of the user list are not shown: pagination is checked, other parameters pass through,
 * except another spelling of `page` or `pageSize` (`page_size`, `pagesize`), which would be sent
 * as a filter and leave the page size at the server's default.
 */
export const userListParamsSchema = lazy(() => {
  const shape = paginationParams();
  const names = Object.keys(shape);
  return z.catchall(object(shape), z.union([z.string(), z.number(), z.boolean()])).check(
    z.superRefine((params, context) => {
      for (const key of Object.keys(params)) {
        if (respelledName(key, names)) context.addIssue({ code: 'custom', path: [], message: unknownOptionMessage('query parameter', key, shape) });
      }
    }),
  );
});

/** Query of `users.list()`: pagination checked, other filters passed through. */
export interface UserListParams extends z.input<ReturnType<typeof userListParamsSchema>> {}

export const orderSchema = lazy(() => notShownRecord(['orderId', 'iccid', 'planId', 'status', 'amount', 'currency', 'createdAt']));

/** An order record: not shown; the sandbox's fields, any JSON value each (see docs/shapes.md). */
export interface Order extends z.infer<ReturnType<typeof orderSchema>> {}
