/** Device assignment to end users, and the end-user list. */
import type { SandboxPlugin } from '../context.js';
import { isEmailAddress } from '../email.js';

export const registerDeviceRoutes: SandboxPlugin = (app, ctx) => {
  app.post('/api/v1.1/devices/:imei/assign', (c) => {
    const device = ctx.state.devices.get(c.req.param('imei'));
    if (!device) return ctx.fail(c, 404, 'DEVICE_NOT_FOUND', 'Device not found');
    const body = ctx.requireBody(c, ['email']);
    if (body instanceof Response) return body;
    // spec part 4: the body's email is an email address (the rule of docs/shapes.md).
    if (!isEmailAddress(body.email)) {
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'email must be an email address', { validationErrors: ['email must be an email address'] });
    }
    // Only end users qualify; a team member's email is not a user (spec part 4).
    const user = ctx.state.users.get(body.email);
    if (!user) return ctx.fail(c, 404, 'USER_NOT_FOUND', 'No end user with this email');
    // spec part 7: the 409 row names "device already assigned" under CONFLICT; DEVICE_ALREADY_ASSIGNED
    // is listed only among the codes whose status is not shown, so the table wins.
    if (device.assignedTo && device.assignedTo.email !== user.email) {
      return ctx.fail(c, 409, 'CONFLICT', 'The device is already assigned to another user');
    }
    if (!device.assignedTo) {
      device.assignedTo = { name: user.name, email: user.email };
      ctx.counters.bump('devices.assign');
    }
    return ctx.ok(c, { imei: device.imei, assignedTo: { ...device.assignedTo } });
  });

  // Shape not shown: rows { email, name, department, createdAt }, paginated.
  app.get('/api/v1.1/users', (c) => ctx.paginate(c, [...ctx.state.users.values()], (u) => ({ ...u })));
};
