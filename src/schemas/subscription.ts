import * as z from 'zod/mini';
import { strictObject } from './objects.js';
import { lazy } from './lazy.js';
import { answerObject, openEnum, paginationParams, timestamp } from './common.js';

/** Values of the list filter (spec part 3); default ACTIVE is widened server-side (rule 1). */
const SUBSCRIPTION_STATUS_FILTERS = ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED'] as const;
/** Values a subscription may carry in results: the filters plus CANCEL_SCHEDULED. */
const SUBSCRIPTION_STATUSES = [...SUBSCRIPTION_STATUS_FILTERS, 'CANCEL_SCHEDULED'] as const;

/** Subscription list item (spec part 2). */
const subscriptionSchema = lazy(() =>
  answerObject({
    /** The SIM the subscription is on. */
    iccid: z.string(),
    /** The plan's name. */
    productName: z.string(),
    /** `ACTIVE`, `PENDING`, `SCHEDULED`, `CANCELLED` or `CANCEL_SCHEDULED`; a newer status passes through as a string. */
    status: openEnum(SUBSCRIPTION_STATUSES),
    /** When it starts or started, ISO 8601; null when not set. */
    startDate: z.nullable(timestamp()),
    /** When it ends or ended, ISO 8601; null while open-ended. */
    endDate: z.nullable(timestamp()),
    /** Whether auto top-up is on for it. */
    autoTopUp: z.boolean(),
    /** The operator of the line. */
    operator: z.string(),
    /** The operator's network of the line. */
    network: z.string(),
  }),
);

/** A plan subscription of a SIM, as listed (spec part 2). */
export interface Subscription extends z.infer<ReturnType<typeof subscriptionSchema>> {}

export const subscriptionListSchema = lazy(() => z.array(subscriptionSchema()));

/** Single-SIM subscription read: the list item plus planCode, scheduledDate and orderId. */
export const subscriptionDetailSchema = lazy(() =>
  z.extend(subscriptionSchema(), {
    /** The plan's code. */
    planCode: z.string(),
    /** When a SCHEDULED subscription takes effect, ISO 8601; null otherwise. */
    scheduledDate: z.nullable(timestamp()),
    /** The order that created it (`client.orders.retrieve()`). */
    orderId: z.string(),
  }),
);

/** The single-SIM subscription read: the list item plus planCode, scheduledDate, orderId (spec part 2). */
export interface SubscriptionDetail extends z.infer<ReturnType<typeof subscriptionDetailSchema>> {}

/** Cancel result (spec part 2); status is typically CANCEL_SCHEDULED (part 3). */
export const subscriptionCancellationSchema = lazy(() =>
  answerObject({
    /** The SIM whose subscription was cancelled. */
    iccid: z.string(),
    /** Its status now, typically `CANCEL_SCHEDULED`: it runs to the end of the billing period. */
    status: openEnum(SUBSCRIPTION_STATUSES),
    /** When the cancellation was recorded, ISO 8601. */
    cancelledDate: timestamp(),
  }),
);

/** Result of `subscriptions.cancel()`, typically CANCEL_SCHEDULED (spec parts 2 and 3). */
export interface SubscriptionCancellation extends z.infer<ReturnType<typeof subscriptionCancellationSchema>> {}

export const subscriptionListParamsSchema = lazy(() =>
  strictObject({
    ...paginationParams(),
    status: z.optional(z.enum(SUBSCRIPTION_STATUS_FILTERS)),
  }),
);

/** Query of `subscriptions.list()`. */
export interface SubscriptionListParams extends z.input<ReturnType<typeof subscriptionListParamsSchema>> {}
