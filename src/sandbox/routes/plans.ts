/** Plan read and the two purchase variants: v1.1 synchronous, v3 asynchronous. */
import type { SandboxContext, SandboxPlugin, TransactionOutcome } from '../context.js';
import { planToWire } from '../state/plans.js';
import type { OrderRecord, PlanRecord, SimRecord } from '../state/types.js';
import { acceptedBody } from './wire.js';

type Checked = { sim: SimRecord; plan: PlanRecord } | { status: 400 | 404; errorCode: string; error: string };

function checkPurchase(ctx: SandboxContext, iccid: string, planId: string): Checked {
  const sim = ctx.state.sims.get(iccid);
  if (!sim) return { status: 404, errorCode: 'SIM_NOT_FOUND', error: 'SIM not found' };
  const plan = ctx.state.plans.get(planId);
  if (!plan) return { status: 404, errorCode: 'PLAN_NOT_FOUND', error: 'Plan not found' };
  if (!plan.pricingConfigured) {
    return { status: 400, errorCode: 'PRICING_NOT_CONFIGURED', error: 'The plan has no usable price for this account' };
  }
  return { sim, plan };
}

/** Records the order and a PENDING subscription starting now. */
function purchase(ctx: SandboxContext, sim: SimRecord, plan: PlanRecord): OrderRecord {
  const now = ctx.clock.nowMs();
  const order: OrderRecord = {
    orderId: ctx.newId('ord_', 12),
    iccid: sim.iccid,
    planId: plan.productId,
    status: 'COMPLETED',
    amount: plan.price,
    currency: plan.currency,
    createdAt: new Date(now).toISOString(),
  };
  ctx.state.orders.set(order.orderId, order);
  ctx.state.subscriptions.push({
    iccid: sim.iccid,
    productName: plan.productId,
    planCode: plan.productId.toUpperCase().replace(/[^A-Z0-9]+/g, '_'),
    status: 'PENDING',
    startDate: order.createdAt,
    endDate: new Date(now + plan.validityDays * 86_400_000).toISOString(),
    autoTopUp: false,
    operator: sim.operator,
    network: sim.network,
    scheduledDate: null,
    orderId: order.orderId,
    createdAt: order.createdAt,
  });
  ctx.counters.bump('plans.purchase');
  return order;
}

export const registerPlanRoutes: SandboxPlugin = (app, ctx) => {
  app.get('/api/v1.1/plans/:planId', (c) => {
    const plan = ctx.state.plans.get(c.req.param('planId'));
    if (!plan) return ctx.fail(c, 404, 'PLAN_NOT_FOUND', 'Plan not found');
    return ctx.ok(c, planToWire(plan));
  });

  // Shape not shown: body { iccid, planId } → the order { orderId, iccid, planId, status, amount, currency, createdAt }.
  app.post('/api/v1.1/plans/purchase', (c) => {
    const body = ctx.requireBody(c, ['iccid', 'planId']);
    if (body instanceof Response) return body;
    const checked = checkPurchase(ctx, String(body.iccid), String(body.planId));
    if ('errorCode' in checked) return ctx.fail(c, checked.status, checked.errorCode, checked.error);
    return ctx.ok(c, purchase(ctx, checked.sim, checked.plan));
  });

  // Async variant: existence and pricing are decided while processing, so they end as FAILED transactions.
  app.post('/api/v3/plans/purchase', (c) => {
    const body = ctx.requireBody(c, ['iccid', 'planId']);
    if (body instanceof Response) return body;
    const iccid = String(body.iccid);
    const planId = String(body.planId);
    ctx.counters.bump('plans.purchaseAsync');
    const tx = ctx.transactions.start({
      kind: 'plans.purchase',
      complete: (): TransactionOutcome => {
        const checked = checkPurchase(ctx, iccid, planId);
        if ('errorCode' in checked) return { errorCode: checked.errorCode, error: checked.error };
        const order = purchase(ctx, checked.sim, checked.plan);
        return { result: { orderId: order.orderId, iccid, planId, amount: order.amount, currency: order.currency } };
      },
    });
    return ctx.ok(c, acceptedBody(tx), { status: 202 });
  });
};
