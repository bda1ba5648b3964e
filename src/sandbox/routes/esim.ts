/** eSIM activation read and asynchronous eSIM provisioning. */
import type { SandboxPlugin, TransactionOutcome } from '../context.js';
import type { SimRecord } from '../state/types.js';
import { acceptedBody } from './wire.js';

export const registerEsimRoutes: SandboxPlugin = (app, ctx) => {
  // A read only: it never regenerates the profile (spec part 4).
  app.get('/api/v1.1/esim/:iccid/qr', (c) => {
    const sim = ctx.state.sims.get(c.req.param('iccid'));
    if (!sim) return ctx.fail(c, 404, 'SIM_NOT_FOUND', 'SIM not found');
    if (!sim.isEsim) {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'The SIM is a physical SIM and has no QR code', {
        validationErrors: ['iccid must identify an eSIM'],
      });
    }
    return ctx.ok(c, {
      iccid: sim.iccid,
      qrCodeUrl: `https://qr.sandbox.example/esim/${sim.iccid}.png`,
      activationCode: sim.activationCode,
    });
  });

  // Shape not shown: body { planId?, email? }; 202 with a transaction whose result is { mdn, iccid, qrCode }.
  // The spec gives these fields no type or format, so each is taken as given and looked up: a
  // plan or an end user the account does not have (whatever its spelling or type) ends the
  // transaction FAILED, never ignored, since a provisioning without them is not the one asked for.
  app.post('/api/v1.1/esim', (c) => {
    const body = ctx.requireBody(c);
    if (body instanceof Response) return body;
    const { planId, email } = body;
    ctx.counters.bump('esim.provision');
    const tx = ctx.transactions.start({
      kind: 'esim.provision',
      complete: (): TransactionOutcome => {
        const plan = planId === undefined ? undefined : ctx.state.plans.get(planId as string);
        if (planId !== undefined && !plan) return { errorCode: 'PLAN_NOT_FOUND', error: 'Plan not found' };
        if (plan && !plan.pricingConfigured) return { errorCode: 'PRICING_NOT_CONFIGURED', error: 'The plan has no usable price for this account' };
        const user = email === undefined ? undefined : ctx.state.users.get(email as string);
        if (email !== undefined && !user) return { errorCode: 'USER_NOT_FOUND', error: 'User not found' };
        const operator = ctx.operator(plan?.operator ?? 'Optus') ?? ctx.state.operators[0];
        if (!operator) return { errorCode: 'INTERNAL_ERROR', error: 'No operator available' };
        const taken = new Set([...ctx.state.sims.values()].map((s) => s.phoneNumber));
        let mdn: string;
        do mdn = `+614${String(ctx.rng.int(100_000_000)).padStart(8, '0')}`;
        while (taken.has(mdn));
        let iccid: string;
        do iccid = `8961${String(ctx.rng.int(1e9)).padStart(9, '0')}${String(ctx.rng.int(1e6)).padStart(6, '0')}`;
        while (ctx.state.sims.has(iccid));
        const activationCode = `LPA:1$smdp.sandbox.example$${ctx.rng.hex(24).toUpperCase()}`;
        const sim: SimRecord = {
          iccid,
          phoneNumber: mdn,
          status: 'ACTIVE',
          assignedStatus: user ? 'ASSIGNED' : 'UNASSIGNED',
          isEsim: true,
          operator: operator.name,
          network: plan?.network ?? operator.networks[0] ?? operator.name,
          operatorStatus: 'Connected',
          assignedTo: user ? { email: user.email, name: user.name } : null,
          device: null,
          group: null,
          createdAt: ctx.nowIso(),
          activationCode,
          voiceEnabled: true,
        };
        ctx.state.sims.set(iccid, sim);
        return { result: { mdn, iccid, qrCode: activationCode } };
      },
    });
    return ctx.ok(c, acceptedBody(tx), { status: 202 });
  });
};
