/** SIM list with its filters, and phone-number renewal. */
import type { SandboxPlugin } from '../context.js';
import { isEmailAddress } from '../email.js';
import type { SimRecord } from '../state/types.js';
import { simToWire } from './wire.js';

const STATUSES = ['ACTIVE', 'INACTIVE', 'EXPIRED'];
const ASSIGNED_STATUSES = ['ASSIGNED', 'UNASSIGNED'];

/** The free-text search looks at every field spec part 4 lists for it. */
function searchable(sim: SimRecord): string[] {
  return [
    sim.iccid,
    sim.phoneNumber,
    sim.operator,
    sim.network,
    sim.assignedTo?.email ?? '',
    sim.device?.imei ?? '',
    sim.device?.model ?? '',
    sim.group ?? '',
  ].map((v) => v.toLowerCase());
}

export const registerSimRoutes: SandboxPlugin = (app, ctx) => {
  app.get('/api/v1.1/sims', (c) => {
    const { status, assignedStatus, assignedTo, search } = c.req.query();
    const errors: string[] = [];
    if (status !== undefined && !STATUSES.includes(status)) errors.push(`status must be one of ${STATUSES.join(', ')}`);
    if (assignedStatus !== undefined && !ASSIGNED_STATUSES.includes(assignedStatus)) {
      errors.push(`assignedStatus must be one of ${ASSIGNED_STATUSES.join(', ')}`);
    }
    // spec part 4: assignedTo is an email string; an empty search would silently match everything.
    if (assignedTo !== undefined && !isEmailAddress(assignedTo)) errors.push('assignedTo must be an email address');
    if (search === '') errors.push('search must not be empty');
    if (errors.length > 0) return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid query parameters', { validationErrors: errors });
    const needle = search?.trim().toLowerCase();
    const email = assignedTo?.toLowerCase();
    const sims = [...ctx.state.sims.values()].filter(
      (sim) =>
        (status === undefined || sim.status === status) &&
        (assignedStatus === undefined || sim.assignedStatus === assignedStatus) &&
        (!email || sim.assignedTo?.email.toLowerCase() === email) &&
        (!needle || searchable(sim).some((field) => field.includes(needle))),
    );
    return ctx.paginate(c, sims, simToWire);
  });

  // Shape not shown in the spec: { iccid, phoneNumber (the new one), previousPhoneNumber }.
  app.post('/api/v1.1/sims/:iccid/renew-number', (c) => {
    // The body's fields are not shown and none is read, but a body that is not an object is refused.
    const body = ctx.requireBody(c);
    if (body instanceof Response) return body;
    const sim = ctx.state.sims.get(c.req.param('iccid'));
    if (!sim) return ctx.fail(c, 404, 'SIM_NOT_FOUND', 'SIM not found');
    const taken = new Set([...ctx.state.sims.values()].map((s) => s.phoneNumber));
    let next: string;
    do next = `+614${String(ctx.rng.int(100_000_000)).padStart(8, '0')}`;
    while (taken.has(next));
    const previousPhoneNumber = sim.phoneNumber;
    sim.phoneNumber = next;
    ctx.counters.bump('sims.renewNumber');
    return ctx.ok(c, { iccid: sim.iccid, phoneNumber: next, previousPhoneNumber });
  });
};
