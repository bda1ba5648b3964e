/** Team members: account admins, a resource distinct from end users. */
import type { SandboxPlugin } from '../context.js';
import { DEPARTMENTS, TEAM_ROLES } from '../state/seed.js';
import type { TeamMemberRecord } from '../state/types.js';

/** spec part 2: departments appear only on Standard Admin rows of the list. */
function listRow(m: TeamMemberRecord): Record<string, unknown> {
  const row: Record<string, unknown> = { name: m.name, email: m.email, role: m.role, status: m.status };
  if (m.role === 'Standard Admin' && m.departments) row.departments = [...m.departments];
  return row;
}

function single(m: TeamMemberRecord): Record<string, unknown> {
  return { name: m.name, email: m.email, role: m.role, status: m.status, invitedAt: m.invitedAt };
}

const findMember = (members: Map<string, TeamMemberRecord>, email: string): TeamMemberRecord | undefined =>
  members.get(email) ?? [...members.values()].find((m) => m.email.toLowerCase() === email.toLowerCase());

export const registerTeamRoutes: SandboxPlugin = (app, ctx) => {
  app.get('/api/v1.1/team-members', (c) => ctx.paginate(c, [...ctx.state.teamMembers.values()], listRow));

  app.get('/api/v1.1/team-members/:email', (c) => {
    const member = findMember(ctx.state.teamMembers, c.req.param('email'));
    if (!member) return ctx.fail(c, 404, 'ADMIN_NOT_FOUND', 'Team member not found');
    return ctx.ok(c, single(member));
  });

  // Shape not shown: body { name, email, role, departments? } → 201 with the single-member shape
  // (status "invited"). Roles: Admin, Standard Admin; departments only apply to Standard Admin.
  app.post('/api/v1.1/team-members', (c) => {
    const body = ctx.requireBody(c, ['name', 'email', 'role']);
    if (body instanceof Response) return body;
    const { name, email, role, departments } = body;
    // The member's fields are strings (spec part 2); the spec shows no format for them here, so
    // an email is stored as written, whatever it looks like.
    if (typeof name !== 'string' || typeof email !== 'string') {
      const validationErrors = (['name', 'email'] as const)
        .filter((field) => typeof body[field] !== 'string')
        .map((field) => `${field} must be a string`);
      return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid team member', { validationErrors });
    }
    if (typeof role !== 'string' || !(TEAM_ROLES as readonly string[]).includes(role)) {
      return ctx.fail(c, 422, 'INVALID_ROLE', `role must be one of ${TEAM_ROLES.join(', ')}`);
    }
    let depts: string[] | undefined;
    if (departments !== undefined) {
      const valid = DEPARTMENTS as readonly string[];
      if (!Array.isArray(departments) || departments.some((d) => typeof d !== 'string' || !valid.includes(d))) {
        return ctx.fail(c, 422, 'INVALID_DEPARTMENT', `departments must be drawn from ${DEPARTMENTS.join(', ')}`);
      }
      depts = departments as string[];
    }
    if (findMember(ctx.state.teamMembers, email)) return ctx.fail(c, 409, 'ADMIN_ALREADY_EXISTS', 'A team member with this email already exists');
    const member: TeamMemberRecord = { name, email, role, status: 'invited', invitedAt: ctx.nowIso() };
    if (role === 'Standard Admin') member.departments = depts ?? [];
    ctx.state.teamMembers.set(email, member);
    ctx.counters.bump('teamMembers.create');
    return ctx.ok(c, single(member), { status: 201 });
  });
};
