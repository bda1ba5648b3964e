/** The universal async status poll; no bearer, the id is the credential (spec part 5 rule 4). */
import type { SandboxPlugin } from '../context.js';
import { transactionToWire } from '../transactions.js';

export const registerTransactionRoutes: SandboxPlugin = (app, ctx) => {
  app.get('/api/v3/transactions/:transactionId', (c) => {
    const tx = ctx.transactions.get(c.req.param('transactionId'));
    if (!tx) return ctx.fail(c, 404, 'NOT_FOUND', 'Transaction not found');
    // A FAILED transaction is still HTTP 200 (spec part 7 rule 3).
    return ctx.ok(c, transactionToWire(tx, ctx.nowIso()));
  });
};
