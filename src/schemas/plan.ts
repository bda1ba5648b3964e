import { z } from 'zod';
import { lazy } from './lazy.js';
import { openEnum } from './common.js';

export const PLAN_TYPES = ['FLAT_RATE', 'PAY_AS_YOU_GO'] as const;

/** Plan (spec part 2). The inner shape of both pricing objects is not shown: open objects. */
export const planSchema = lazy(() => z.looseObject({
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
  tieredPricing: z.looseObject({}).optional(),
  volumeTierPricing: z.looseObject({}).optional(),
}));

export type Plan = z.infer<ReturnType<typeof planSchema>>;

/**
 * Body of a plan purchase (v1.1 and v3): not shown. A purchase needs a plan and a SIM, named as
 * elsewhere in the spec (the plan's productId as planId, the SIM's iccid); other fields pass through.
 */
export const planPurchaseParamsSchema = lazy(() => z.looseObject({
  planId: z.string().min(1),
  iccid: z.string().min(1),
}));

export type PlanPurchaseParams = z.input<ReturnType<typeof planPurchaseParamsSchema>>;

/** Result of the synchronous purchase: not shown; the order's fields are typed when present. */
export const planPurchaseSchema = lazy(() => z.looseObject({
  orderId: z.string().optional(),
  iccid: z.string().optional(),
  planId: z.string().optional(),
  status: z.string().optional(),
  amount: z.number().optional(),
  currency: z.string().optional(),
}));

export type PlanPurchase = z.infer<ReturnType<typeof planPurchaseSchema>>;
