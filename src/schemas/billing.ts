import * as z from 'zod';
import { lazy } from './lazy.js';
import { answerObject, suggestedBody } from './common.js';

/** Credit balance (spec part 2): one amount per currency. */
export const creditBalanceSchema = lazy(() =>
  answerObject({
    /** One entry per currency: `{ currency, amount }`, the currency a lower-case code. */
    creditBalance: z.array(answerObject({ currency: z.string(), amount: z.number() })),
  }),
);

/** Prepaid credit of the account, one amount per currency (spec part 2). */
export interface CreditBalance extends z.infer<ReturnType<typeof creditBalanceSchema>> {}

/**
 * Body of POST /api/v1.1/top-up: not shown (spec part 4, known by name only). Suggested: amount
 * and currency, named as in the credit balance (amount positive, currency a lower-case code),
 * and an iccid to target one SIM; none is required, anything else is passed through.
 */
export const topUpParamsSchema = lazy(() =>
  suggestedBody({
    amount: z.number().positive().optional(),
    currency: z
      .string()
      .regex(/^[a-z]{3}$/, 'must be a lower-case currency code such as usd')
      .optional(),
    iccid: z.string().min(1).optional(),
  }),
);

/** Body of `billing.topUp()`: suggested fields, none required (shape not shown). */
export interface TopUpParams extends z.input<ReturnType<typeof topUpParamsSchema>> {}
