/** Subscription list, single-SIM read with its fallback, and cancellation (spec part 3). */
import type { SandboxPlugin } from '../context.js';
import type { SubscriptionRecord, SubscriptionStatus } from '../state/types.js';
import { subscriptionDetail, subscriptionItem } from './wire.js';

const FILTERS = ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED'];
/** spec part 3 rule 1: the default ACTIVE filter means the still-serving set. */
const SERVING: readonly SubscriptionStatus[] = ['ACTIVE', 'PENDING', 'CANCEL_SCHEDULED'];

const newestFirst = (a: SubscriptionRecord, b: SubscriptionRecord): number => b.createdAt.localeCompare(a.createdAt);

export const registerSubscriptionRoutes: SandboxPlugin = (app, ctx) => {
  app.get('/api/v1.1/subscriptions', (c) => {
    const status = c.req.query('status') ?? 'ACTIVE';
    if (!FILTERS.includes(status)) {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid status filter', {
        validationErrors: [`status must be one of ${FILTERS.join(', ')}`],
      });
    }
    const matches = ctx.state.subscriptions.filter((s) => (status === 'ACTIVE' ? SERVING.includes(s.status) : s.status === status));
    return ctx.paginate(c, matches, subscriptionItem);
  });

  app.get('/api/v1.1/sims/:iccid/subscription', (c) => {
    const iccid = c.req.param('iccid');
    if (!ctx.state.sims.has(iccid)) return ctx.fail(c, 404, 'SIM_NOT_FOUND', 'SIM not found');
    const own = ctx.state.subscriptions.filter((s) => s.iccid === iccid).sort(newestFirst);
    // spec part 3 rule 2: no serving subscription → the newest SCHEDULED one
    const chosen = own.find((s) => SERVING.includes(s.status)) ?? own.find((s) => s.status === 'SCHEDULED');
    if (!chosen) return ctx.fail(c, 404, 'SUBSCRIPTION_NOT_FOUND', 'The SIM has no current or scheduled subscription');
    return ctx.ok(c, subscriptionDetail(chosen));
  });

  app.post('/api/v1.1/subscriptions/:iccid/cancel', (c) => {
    const iccid = c.req.param('iccid');
    if (!ctx.state.sims.has(iccid)) return ctx.fail(c, 404, 'SIM_NOT_FOUND', 'SIM not found');
    const own = ctx.state.subscriptions.filter((s) => s.iccid === iccid).sort(newestFirst);
    if (own.length === 0) return ctx.fail(c, 404, 'SUBSCRIPTION_NOT_FOUND', 'The SIM has no subscription');
    const target = own.find((s) => s.status === 'ACTIVE' || s.status === 'PENDING') ?? own.find((s) => s.status === 'SCHEDULED');
    if (!target) return ctx.fail(c, 409, 'CONFLICT', 'The subscription is already cancelled');
    let cancelledDate: string;
    if (target.status === 'SCHEDULED') {
      // Nothing is being served yet, so nothing runs to a period end.
      target.status = 'CANCELLED';
      cancelledDate = ctx.nowIso();
    } else {
      // Cancels at the end of the current billing period (spec part 3, transitions).
      target.status = 'CANCEL_SCHEDULED';
      cancelledDate = target.endDate;
    }
    ctx.counters.bump('subscriptions.cancel');
    return ctx.ok(c, { iccid, status: target.status, cancelledDate }, { status: 201 });
  });
};
