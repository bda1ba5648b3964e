import * as z from 'zod';
import { lazy } from './lazy.js';
import { notShown, type OpenObject, openEnum, openObjectSchema, suggestedBody } from './common.js';

const PLAN_TYPES = ['FLAT_RATE', 'PAY_AS_YOU_GO'] as const;

/** Plan (spec part 2). The inner shape of both pricing objects is not shown, so either may be any JSON value. */
export const planSchema = lazy(() =>
  z.looseObject({
    productId: z.string(),
    description: z.string(),
    price: z.number(),
    currency: z.string(),
    validityDays: z.number(),
    data: z.looseObject({ value: z.number(), unit: z.string() }),
    voiceMinutes: z.number(),
    smsCount: z.number(),
    operator: z.string(),
    network: z.string(),
    isEsim: z.boolean(),
    planType: openEnum(PLAN_TYPES),
    recurring: z.boolean(),
    tieredPricing: notShown().optional(),
    volumeTierPricing: notShown().optional(),
  }),
);

/** A plan of the catalog; `productId` is its display name and id (spec part 2). */
export interface Plan extends z.infer<ReturnType<typeof planSchema>> {}

/**
 * Body of a plan purchase (v1.1 and v3): not shown (spec part 4, known by name only). Suggested:
 * the plan (its productId, as planId) and the SIM (iccid), named as elsewhere in the spec; none
 * is required, other fields pass through.
 */
export const planPurchaseParamsSchema = lazy(() =>
  suggestedBody({
    planId: z.string().min(1).optional(),
    iccid: z.string().min(1).optional(),
  }),
);

/** Body of `plans.purchase()` and `plans.purchaseAsync()`: suggested fields, none required (shape not shown). */
export interface PlanPurchaseParams extends z.input<ReturnType<typeof planPurchaseParamsSchema>> {}

/** Result of the synchronous purchase: not shown; an object whose fields are kept as sent. */
export const planPurchaseSchema = openObjectSchema;

/** Answer of `plans.purchase()`: not shown, every field kept as sent. */
export interface PlanPurchase extends OpenObject {}
