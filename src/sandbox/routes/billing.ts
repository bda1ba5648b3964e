/** Credit balance, asynchronous top-up, and orders. */
import type { SandboxPlugin, TransactionOutcome } from '../context.js';
import { acceptedBody } from './wire.js';

export const registerBillingRoutes: SandboxPlugin = (app, ctx) => {
  // spec part 4: 404 NOT_FOUND when the account's billing customer is missing (account.customerMissing).
  app.get('/api/v1.1/credit-balance', (c) => {
    if (ctx.account.customerMissing) return ctx.fail(c, 404, 'NOT_FOUND', 'Customer not found');
    return ctx.ok(c, { creditBalance: ctx.state.creditBalance.map((b) => ({ currency: b.currency, amount: b.amount })) });
  });

  // Shape not shown: body { amount, currency?, iccid? } → 201 with a transaction; the result is
  // { currency, amount, balance, iccid? }. amount and currency go into the credit balance, whose
  // members are a number and a string (spec part 2); the spec shows no other rule for them, so any
  // number and any currency text are credited as given. An iccid the account does not have (of
  // any spelling or type) ends FAILED with SIM_NOT_FOUND.
  app.post('/api/v1.1/top-up', (c) => {
    const body = ctx.requireBody(c, ['amount']);
    if (body instanceof Response) return body;
    const errors: string[] = [];
    const amount = body.amount;
    if (typeof amount !== 'number') errors.push('amount must be a number');
    const currency = body.currency ?? ctx.state.creditBalance[0]?.currency ?? 'aud';
    if (typeof currency !== 'string') errors.push('currency must be a string');
    const iccid = body.iccid;
    if (errors.length > 0 || typeof amount !== 'number' || typeof currency !== 'string') {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid top-up request', { validationErrors: errors });
    }
    ctx.counters.bump('topUp');
    const tx = ctx.transactions.start({
      kind: 'topUp',
      complete: (): TransactionOutcome => {
        if (iccid !== undefined && !ctx.state.sims.has(iccid as string)) return { errorCode: 'SIM_NOT_FOUND', error: 'SIM not found' };
        let balance = ctx.state.creditBalance.find((b) => b.currency === currency);
        if (!balance) {
          balance = { currency, amount: 0 };
          ctx.state.creditBalance.push(balance);
        }
        balance.amount = Math.round((balance.amount + amount) * 100) / 100;
        return { result: { currency, amount, balance: balance.amount, ...(typeof iccid === 'string' ? { iccid } : {}) } };
      },
    });
    return ctx.ok(c, acceptedBody(tx), { status: 201 });
  });

  // Shape not shown: { orderId, iccid, planId, status, amount, currency, createdAt }.
  app.get('/api/v1.1/orders/:id', (c) => {
    const order = ctx.state.orders.get(c.req.param('id'));
    if (!order) return ctx.fail(c, 404, 'NOT_FOUND', 'Order not found');
    return ctx.ok(c, { ...order });
  });
};
