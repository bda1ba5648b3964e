import { z } from 'zod';
import { openEnum, paginationParams, timestamp } from './common.js';

/** Values of the list filter (spec part 3); default ACTIVE is widened server-side (rule 1). */
export const SUBSCRIPTION_STATUS_FILTERS = ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED'] as const;
/** Values a subscription may carry in results: the filters plus CANCEL_SCHEDULED. */
export const SUBSCRIPTION_STATUSES = [...SUBSCRIPTION_STATUS_FILTERS, 'CANCEL_SCHEDULED'] as const;

/** Subscription list item (spec part 2). */
export const subscriptionSchema = z.looseObject({
  iccid: z.string(),
  productName: z.string(),
  status: openEnum(SUBSCRIPTION_STATUSES),
  startDate: timestamp.nullable(),
  endDate: timestamp.nullable(),
  autoTopUp: z.boolean(),
  operator: z.string(),
  network: z.string(),
});

export type Subscription = z.infer<typeof subscriptionSchema>;

export const subscriptionListSchema = z.array(subscriptionSchema);

/** Single-SIM subscription read: the list item plus planCode, scheduledDate and orderId. */
export const subscriptionDetailSchema = subscriptionSchema.extend({
  planCode: z.string(),
  scheduledDate: timestamp.nullable(),
  orderId: z.string(),
});

export type SubscriptionDetail = z.infer<typeof subscriptionDetailSchema>;

/** Cancel result (spec part 2); status is typically CANCEL_SCHEDULED (part 3). */
export const subscriptionCancellationSchema = z.looseObject({
  iccid: z.string(),
  status: openEnum(SUBSCRIPTION_STATUSES),
  cancelledDate: timestamp,
});

export type SubscriptionCancellation = z.infer<typeof subscriptionCancellationSchema>;

export const subscriptionListParamsSchema = z.strictObject({
  ...paginationParams,
  status: z.enum(SUBSCRIPTION_STATUS_FILTERS).optional(),
});

export type SubscriptionListParams = z.input<typeof subscriptionListParamsSchema>;
