import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { answerObject, suggested, suggestedBody } from './common.js';

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
 * and currency, named as in the credit balance (a number, and a lower-case code such as `usd`),
 * and an iccid to target one SIM. The spec types none of them here, so the server judges them:
 * each is sent as given. None is required, anything else is passed through.
 */
export const topUpParamsSchema = lazy(() =>
  suggestedBody({
    amount: suggested<number>(),
    currency: suggested<string>(),
    iccid: suggested<string>(),
  }),
);

/** Body of `billing.topUp()`: suggested fields, none required (shape not shown). */
export interface TopUpParams extends z.input<ReturnType<typeof topUpParamsSchema>> {}
