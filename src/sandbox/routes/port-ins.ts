/** Port-in list, the open eligibility check, and the Admin-tier async submission (v3). */
import type { SandboxContext, SandboxPlugin, TransactionOutcome } from '../context.js';
import { E164_PATTERN as E164 } from '../../shared/e164.js';
import { acceptedBody } from './wire.js';

const STATUSES = ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED'];

/** Why a number cannot be ported in, or null when it can. */
function ineligibility(ctx: SandboxContext, portInNumber: string): string | null {
  if (ctx.simByNumber(portInNumber)) return 'NUMBER_ALREADY_ON_ACCOUNT';
  if (ctx.state.portIns.some((p) => p.portInNumber === portInNumber && (p.status === 'PENDING' || p.status === 'IN_PROGRESS'))) {
    return 'PORT_IN_ALREADY_IN_PROGRESS';
  }
  // Sandbox convention: numbers ending in 0000 belong to a carrier that refuses ports.
  if (portInNumber.endsWith('0000')) return 'NUMBER_NOT_PORTABLE';
  return null;
}

export const registerPortInRoutes: SandboxPlugin = (app, ctx) => {
  app.get('/api/v1.1/port-ins', (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !STATUSES.includes(status)) {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid status filter', {
        validationErrors: [`status must be one of ${STATUSES.join(', ')}`],
      });
    }
    return ctx.paginate(
      c,
      ctx.state.portIns.filter((p) => status === undefined || p.status === status),
    );
  });

  // Shape not shown: body { portInNumber } → { portInNumber, eligible, reason? }.
  app.post('/api/v1.1/port-in/eligibility', (c) => {
    const body = ctx.requireBody(c, ['portInNumber']);
    if (body instanceof Response) return body;
    const portInNumber = body.portInNumber;
    if (typeof portInNumber !== 'string' || !E164.test(portInNumber)) {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'portInNumber must be an E.164 number', {
        validationErrors: ['portInNumber must be an E.164 number'],
      });
    }
    const reason = ineligibility(ctx, portInNumber);
    return ctx.ok(c, reason ? { portInNumber, eligible: false, reason } : { portInNumber, eligible: true });
  });

  // spec part 1 rule 8: Admin tier, and outside the envelope. Success is the bare
  // { transactionId, statusEndpoint, status }; errors keep the error envelope so one parser fits all.
  app.post('/api/v3/port-in', (c) => {
    if (c.get('tier') !== 'admin') return ctx.fail(c, 403, 'FORBIDDEN', 'Port-in submission requires an Admin-tier role');
    const body = ctx.requireBody(c, ['portInNumber', 'iccid']);
    if (body instanceof Response) return body;
    const portInNumber = body.portInNumber;
    const iccid = String(body.iccid);
    if (typeof portInNumber !== 'string' || !E164.test(portInNumber)) {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'portInNumber must be an E.164 number', {
        validationErrors: ['portInNumber must be an E.164 number'],
      });
    }
    ctx.counters.bump('portIn.submit');
    const tx = ctx.transactions.start({
      kind: 'portIn.submit',
      complete: (): TransactionOutcome => {
        if (!ctx.state.sims.has(iccid)) return { errorCode: 'SIM_NOT_FOUND', error: 'SIM not found' };
        const reason = ineligibility(ctx, portInNumber);
        if (reason) return { errorCode: 'VALIDATION_ERROR', error: `Number is not eligible for port-in (${reason})` };
        const record = { portInNumber, iccid, status: 'PENDING' as const, submittedAt: ctx.nowIso() };
        ctx.state.portIns.unshift(record);
        return { result: { ...record } };
      },
    });
    return c.json(acceptedBody(tx), 202);
  });
};
