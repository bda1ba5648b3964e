import { z } from 'zod';
import { lazy } from './lazy.js';
import { openEnum, paginationParams, timestamp } from './common.js';

/** Values of the list filter (spec part 3); default ACTIVE is widened server-side (rule 1). */
export const SUBSCRIPTION_STATUS_FILTERS = ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED'] as const;
/** Values a subscription may carry in results: the filters plus CANCEL_SCHEDULED. */
export const SUBSCRIPTION_STATUSES = [...SUBSCRIPTION_STATUS_FILTERS, 'CANCEL_SCHEDULED'] as const;

/** Subscription list item (spec part 2). */
export const subscriptionSchema = lazy(() => z.looseObject({
  iccid: z.string(),
  productName: z.string(),
  status: openEnum(SUBSCRIPTION_STATUSES),
  startDate: timestamp().nullable(),
  endDate: timestamp().nullable(),
  autoTopUp: z.boolean(),
  operator: z.string(),
  network: z.string(),
}));

export type Subscription = z.infer<ReturnType<typeof subscriptionSchema>>;

export const subscriptionListSchema = lazy(() => z.array(subscriptionSchema()));

/** Single-SIM subscription read: the list item plus planCode, scheduledDate and orderId. */
export const subscriptionDetailSchema = lazy(() => subscriptionSchema().extend({
  planCode: z.string(),
  scheduledDate: timestamp().nullable(),
  orderId: z.string(),
}));

export type SubscriptionDetail = z.infer<ReturnType<typeof subscriptionDetailSchema>>;

/** Cancel result (spec part 2); status is typically CANCEL_SCHEDULED (part 3). */
export const subscriptionCancellationSchema = lazy(() => z.looseObject({
  iccid: z.string(),
  status: openEnum(SUBSCRIPTION_STATUSES),
  cancelledDate: timestamp(),
}));

export type SubscriptionCancellation = z.infer<ReturnType<typeof subscriptionCancellationSchema>>;

export const subscriptionListParamsSchema = lazy(() => z.strictObject({
  ...paginationParams(),
  status: z.enum(SUBSCRIPTION_STATUS_FILTERS).optional(),
}));

export type SubscriptionListParams = z.input<ReturnType<typeof subscriptionListParamsSchema>>;
