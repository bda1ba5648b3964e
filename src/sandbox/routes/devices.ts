/** Device assignment to end users, and the end-user list. */
import type { SandboxPlugin } from '../context.js';
import { missingFields } from './wire.js';

export const registerDeviceRoutes: SandboxPlugin = (app, ctx) => {
  app.post('/api/v1.1/devices/:imei/assign', (c) => {
    const device = ctx.state.devices.get(c.req.param('imei'));
    if (!device) return ctx.fail(c, 404, 'DEVICE_NOT_FOUND', 'Device not found');
    const body = ctx.readBody(c);
    if (!body) return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Body must be a JSON object');
    if (missingFields(body, ['email']).length > 0) {
      return ctx.fail(c, 400, 'MISSING_FIELDS', 'Missing fields: email', { missingFields: ['email'] });
    }
    // Only end users qualify; a team member's email is not a user (spec part 4).
    const user = typeof body.email === 'string' ? ctx.state.users.get(body.email) : undefined;
    if (!user) return ctx.fail(c, 404, 'USER_NOT_FOUND', 'No end user with this email');
    if (device.assignedTo && device.assignedTo.email !== user.email) {
      return ctx.fail(c, 409, 'DEVICE_ALREADY_ASSIGNED', 'The device is already assigned to another user');
    }
    if (!device.assignedTo) {
      device.assignedTo = { name: user.name, email: user.email };
      ctx.counters.bump('devices.assign');
    }
    return ctx.ok(c, { imei: device.imei, assignedTo: { ...device.assignedTo } });
  });

  // Shape not shown: rows { email, name, department, createdAt }, paginated.
  app.get('/api/v1.1/users', (c) => ctx.paginate(c, [...ctx.state.users.values()].map((u) => ({ ...u }))));
};
