import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, useSandbox } from './helpers.js';

const s = useSandbox();

/** A request whose request-target is sent byte for byte, without URL normalisation. */
function raw(method: string, target: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(s.sandbox.url);
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: target, headers: { authorization: `Bearer ${s.token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('path parameters reach their routes intact', () => {
  it('routes an encoded ".." or "." segment to the sim-group route as the name', async () => {
    const dots = await raw('GET', '/api/v1.1/sim-groups/%2E%2E');
    expect(dots.status).toBe(404);
    expect(dots.body.error).toEqual({ code: 'SIM_GROUP_NOT_FOUND', message: 'SIM group ".." not found' });
    const dot = await raw('GET', '/api/v1.1/sim-groups/%2e');
    expect(dot.body.error.message).toBe('SIM group "." not found');
    const logged = (await call(s.sandbox, 'GET', '/_sandbox/requests')).body.requests.map((r: any) => r.path);
    expect(logged).toContain('/api/v1.1/sim-groups/%2E%2E');
  });

  it('round-trips names with "/", spaces and unicode, and emails with "+"', async () => {
    for (const name of ['Sales/East', 'Field Ops', 'Équipe Montréal 📱']) {
      const res = await raw('GET', `/api/v1.1/sim-groups/${encodeURIComponent(name)}`);
      expect(res.status, name).toBe(200);
      expect(res.body.data.name).toBe(name);
    }
    const email = s.sandbox.fixtures.plusTeamMemberEmail;
    const encoded = await raw('GET', `/api/v1.1/team-members/${encodeURIComponent(email)}`);
    expect(encoded.body.data.email).toBe(email);
    const literal = await raw('GET', `/api/v1.1/team-members/${email.replace('@', '%40')}`);
    expect(literal.body.data.email).toBe(email);
    const plan = await raw('GET', '/api/v1.1/plans/Business%205GB');
    expect(plan.body.data.productId).toBe('Business 5GB');
  });
});
