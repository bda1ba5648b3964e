import { z } from 'zod';
import { lazy } from './lazy.js';

/** Credit balance (spec part 2): one amount per currency. */
export const creditBalanceSchema = lazy(() => z.looseObject({
  creditBalance: z.array(z.looseObject({ currency: z.string(), amount: z.number() })),
}));

export type CreditBalance = z.infer<ReturnType<typeof creditBalanceSchema>>;

/**
 * Body of POST /api/v1.1/top-up: not shown. The credit balance names amount and currency, so
 * those are the typed fields (amount positive, currency a lower-case code, the account's own when
 * omitted); an iccid targets one SIM; anything else is passed through.
 */
export const topUpParamsSchema = lazy(() => z.looseObject({
  amount: z.number().positive(),
  currency: z.string().regex(/^[a-z]{3}$/, 'must be a lower-case currency code such as usd').optional(),
  iccid: z.string().min(1).optional(),
}));

export type TopUpParams = z.input<ReturnType<typeof topUpParamsSchema>>;
