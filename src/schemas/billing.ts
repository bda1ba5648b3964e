import { z } from 'zod';
import { lazy } from './lazy.js';
import { suggestedBody } from './common.js';

/** Credit balance (spec part 2): one amount per currency. */
export const creditBalanceSchema = lazy(() => z.looseObject({
  creditBalance: z.array(z.looseObject({ currency: z.string(), amount: z.number() })),
}));

export type CreditBalance = z.infer<ReturnType<typeof creditBalanceSchema>>;

/**
 * Body of POST /api/v1.1/top-up: not shown (spec part 4, known by name only). Suggested: amount
 * and currency, named as in the credit balance (amount positive, currency a lower-case code),
 * and an iccid to target one SIM; none is required, anything else is passed through.
 */
export const topUpParamsSchema = lazy(() => suggestedBody({
  amount: z.number().positive().optional(),
  currency: z.string().regex(/^[a-z]{3}$/, 'must be a lower-case currency code such as usd').optional(),
  iccid: z.string().min(1).optional(),
}));

export type TopUpParams = z.input<ReturnType<typeof topUpParamsSchema>>;
