import * as z from 'zod';
import { lazy } from './lazy.js';
import { openEnum, paginationParams, timestamp } from './common.js';

/** Values of the list filter (spec part 3); default ACTIVE is widened server-side (rule 1). */
const SUBSCRIPTION_STATUS_FILTERS = ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED'] as const;
/** Values a subscription may carry in results: the filters plus CANCEL_SCHEDULED. */
const SUBSCRIPTION_STATUSES = [...SUBSCRIPTION_STATUS_FILTERS, 'CANCEL_SCHEDULED'] as const;

/** Subscription list item (spec part 2). */
const subscriptionSchema = lazy(() =>
  z.looseObject({
    iccid: z.string(),
    productName: z.string(),
    status: openEnum(SUBSCRIPTION_STATUSES),
    startDate: timestamp().nullable(),
    endDate: timestamp().nullable(),
    autoTopUp: z.boolean(),
    operator: z.string(),
    network: z.string(),
  }),
);

/** A plan subscription of a SIM, as listed (spec part 2). */
export interface Subscription extends z.infer<ReturnType<typeof subscriptionSchema>> {}

export const subscriptionListSchema = lazy(() => z.array(subscriptionSchema()));

/** Single-SIM subscription read: the list item plus planCode, scheduledDate and orderId. */
export const subscriptionDetailSchema = lazy(() =>
  subscriptionSchema().extend({
    planCode: z.string(),
    scheduledDate: timestamp().nullable(),
    orderId: z.string(),
  }),
);

/** The single-SIM subscription read: the list item plus planCode, scheduledDate, orderId (spec part 2). */
export interface SubscriptionDetail extends z.infer<ReturnType<typeof subscriptionDetailSchema>> {}

/** Cancel result (spec part 2); status is typically CANCEL_SCHEDULED (part 3). */
export const subscriptionCancellationSchema = lazy(() =>
  z.looseObject({
    iccid: z.string(),
    status: openEnum(SUBSCRIPTION_STATUSES),
    cancelledDate: timestamp(),
  }),
);

/** Result of `subscriptions.cancel()`, typically CANCEL_SCHEDULED (spec parts 2 and 3). */
export interface SubscriptionCancellation extends z.infer<ReturnType<typeof subscriptionCancellationSchema>> {}

export const subscriptionListParamsSchema = lazy(() =>
  z.strictObject({
    ...paginationParams(),
    status: z.enum(SUBSCRIPTION_STATUS_FILTERS).optional(),
  }),
);

/** Query of `subscriptions.list()`. */
export interface SubscriptionListParams extends z.input<ReturnType<typeof subscriptionListParamsSchema>> {}
