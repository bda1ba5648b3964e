import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { answerObject, notShown, notShownRecord, openEnum, suggested, suggestedBody } from './common.js';

const PLAN_TYPES = ['FLAT_RATE', 'PAY_AS_YOU_GO'] as const;

/** Plan (spec part 2). The inner shape of both pricing objects is not shown, so either may be any JSON value. */
export const planSchema = lazy(() =>
  answerObject({
    /** The plan's display name, which is also its id (`plans.retrieve()`, `planId` of purchases). */
    productId: z.string(),
    /** What the plan offers, in words. */
    description: z.string(),
    /** The price, in `currency`. */
    price: z.number(),
    /** The price's currency, a lower-case code such as `usd`. */
    currency: z.string(),
    /** How many days the plan is valid for. */
    validityDays: z.number(),
    /** The data allowance, e.g. `{ value: 5, unit: 'GB' }`. */
    data: answerObject({ value: z.number(), unit: z.string() }),
    /** Voice minutes included. */
    voiceMinutes: z.number(),
    /** SMS included. */
    smsCount: z.number(),
    /** The operator whose lines the plan is for. */
    operator: z.string(),
    /** The operator's network. */
    network: z.string(),
    /** Whether it is an eSIM plan. */
    isEsim: z.boolean(),
    /** `FLAT_RATE` or `PAY_AS_YOU_GO`; a newer type passes through as a string. */
    planType: openEnum(PLAN_TYPES),
    /** Whether the plan recurs. */
    recurring: z.boolean(),
    /** Present only for `PAY_AS_YOU_GO` plans; its shape is not shown in the spec (any JSON value). */
    tieredPricing: z.optional(notShown()),
    /** Present only when volume-tiered pricing is enabled for the plan; its shape is not shown in the spec (any JSON value). */
    volumeTierPricing: z.optional(notShown()),
  }),
);

/** A plan of the catalog; `productId` is its display name and id (spec part 2). */
export interface Plan extends z.infer<ReturnType<typeof planSchema>> {}

/**
 * Body of a plan purchase (v1.1 and v3): not shown (spec part 4, known by name only). Suggested:
 * the plan (its productId, as planId) and the SIM (iccid), named as elsewhere in the spec and
 * sent as given (the server judges them); none is required, other fields pass through.
 */
export const planPurchaseParamsSchema = lazy(() =>
  suggestedBody({
    planId: suggested<string>(),
    iccid: suggested<string>(),
  }),
);

/** Body of `plans.purchase()` and `plans.purchaseAsync()`: suggested fields, none required (shape not shown). */
export interface PlanPurchaseParams extends z.input<ReturnType<typeof planPurchaseParamsSchema>> {}

/** Result of the synchronous purchase: not shown; the sandbox's order fields are named, every field is kept as sent. */
export const planPurchaseSchema = lazy(() => notShownRecord(['orderId', 'iccid', 'planId', 'status', 'amount', 'currency', 'createdAt']));

/** Answer of `plans.purchase()`: not shown; the sandbox's order fields, any JSON value each (see docs/shapes.md). */
export interface PlanPurchase extends z.infer<ReturnType<typeof planPurchaseSchema>> {}
