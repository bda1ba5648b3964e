/** Outbound SMS from one of the account's lines (spec part 4, messaging). */
import type { SandboxPlugin } from '../context.js';
import { E164_PATTERN as E164 } from '../../shared/e164.js';

export const registerSmsRoutes: SandboxPlugin = (app, ctx) => {
  app.post('/api/v1.1/sms', (c) => {
    // spec part 5 rule 5: the one route that needs the Admin tier besides port-in.
    if (c.get('tier') !== 'admin') return ctx.fail(c, 403, 'FORBIDDEN', 'Sending SMS requires the Admin role tier');
    const body = ctx.requireBody(c, ['fromNumber', 'toNumber', 'text']);
    if (body instanceof Response) return body;
    const { fromNumber, toNumber, text } = body;
    const errors: string[] = [];
    if (typeof fromNumber !== 'string' || !E164.test(fromNumber)) errors.push('fromNumber must be an E.164 number');
    if (typeof toNumber !== 'string' || !E164.test(toNumber)) errors.push('toNumber must be an E.164 number');
    if (typeof text !== 'string') errors.push('text must be a string');
    if (errors.length > 0 || typeof fromNumber !== 'string') {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid SMS request', { validationErrors: errors });
    }
    const line = ctx.simByNumber(fromNumber);
    if (!line) return ctx.fail(c, 404, 'SIM_NOT_FOUND', 'fromNumber is not a line of this account');
    if (!ctx.operator(line.operator)?.outboundSms) {
      return ctx.fail(c, 501, 'NOT_IMPLEMENTED', `Outbound SMS is not supported by ${line.operator}`);
    }
    ctx.counters.bump('sms.sent');
    return ctx.ok(c, { message: 'SMS accepted for delivery' }, { status: 201 });
  });
};
