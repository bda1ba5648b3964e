/** SIM group read and user group soft delete; names are exact, case-sensitive keys. */
import type { SandboxPlugin } from '../context.js';

export const registerGroupRoutes: SandboxPlugin = (app, ctx) => {
  app.get('/api/v1.1/sim-groups/:name', (c) => {
    const name = c.req.param('name');
    const group = ctx.state.simGroups.get(name);
    if (!group) return ctx.fail(c, 404, 'SIM_GROUP_NOT_FOUND', `SIM group ${JSON.stringify(name)} not found`);
    return ctx.ok(c, { ...group });
  });

  app.delete('/api/v1.1/user-groups/:name', (c) => {
    const name = c.req.param('name');
    const group = ctx.state.userGroups.get(name);
    // A deleted group is gone for the API even though the record is kept (soft delete).
    if (!group || group.status === 'DELETED') {
      return ctx.fail(c, 404, 'USER_GROUP_NOT_FOUND', `User group ${JSON.stringify(name)} not found`);
    }
    group.status = 'DELETED';
    ctx.counters.bump('userGroups.delete');
    return ctx.ok(c, { name: group.name, status: 'DELETED' });
  });
};
