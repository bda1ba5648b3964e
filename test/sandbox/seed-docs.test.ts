/**
 * Holds docs/sandbox-reference.md's statements about the seeded account ("## The seed") to the sandbox itself,
 * through the partner API, so prose and seed cannot drift apart: each fact is read out of the
 * guide's text, then checked by behaviour.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSandbox } from './helpers.js';

const s = useSandbox({}, { resetEach: true });

const guide = readFileSync(new URL('../../docs/sandbox-reference.md', import.meta.url), 'utf8');
const section = (() => {
  const start = guide.indexOf('## The seed');
  const end = guide.indexOf('\n## ', start + 1);
  return guide.slice(start, end).replace(/\s+/g, ' ');
})();

/** The first capture groups of `pattern` in the seed section; fails loudly when the wording changed. */
function stated(pattern: RegExp): string[] {
  const match = pattern.exec(section);
  if (!match) throw new Error(`the sandbox guide's seed section no longer states ${pattern}`);
  return match.slice(1).map((g) => g ?? '');
}

const WORDS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6 };

interface Line {
  operator: string;
  network: string;
  phoneNumber: string;
}

/** Every SIM of the account, through the paginated list. */
async function allSims(): Promise<Line[]> {
  const sims: Line[] = [];
  for (let page = 1; ; page++) {
    const res = await s.get(`/api/v1.1/sims?pageSize=100&page=${page}`);
    sims.push(...res.body.data);
    if (page >= res.body.meta.totalPages) return sims;
  }
}

describe("the sandbox guide's seed section matches the seeded sandbox", () => {
  it('states the number of SIMs and of operators', async () => {
    const [simCount, operators] = stated(/`simCount` SIMs \((\d+) by default\), eSIM and physical, on (\w+) operators/);
    const sims = await allSims();
    expect(sims).toHaveLength(Number(simCount));
    expect(new Set(sims.map((sim) => sim.operator)).size).toBe(WORDS[operators ?? '']);
  });

  it('states which operators can send outbound SMS and which cannot', async () => {
    const [first, second, third, cannot] = stated(/(\w+), (\w+) and (\w+) can send outbound SMS; (\w+) cannot/);
    const sims = await allSims();
    const send = (operator: string) => {
      const line = sims.find((sim) => sim.operator === operator);
      if (!line) throw new Error(`no seeded line of ${operator}`);
      return s.post('/api/v1.1/sms', { fromNumber: line.phoneNumber, toNumber: '+14155550100', text: 'readme' });
    };
    for (const operator of [first, second, third]) expect([operator, (await send(operator ?? '')).status]).toEqual([operator, 201]);
    const refused = await send(cannot ?? '');
    expect([cannot, refused.status, refused.body.error.code]).toEqual([cannot, 501, 'NOT_IMPLEMENTED']);
  });

  it('states which operator takes no SMS webhook registrations', async () => {
    const [noRegistrations] = stated(/(\w+) takes no SMS webhook registrations/);
    const sims = await allSims();
    for (const operator of new Set(sims.map((sim) => sim.operator))) {
      const network = sims.find((sim) => sim.operator === operator)?.network;
      const res = await s.post('/api/v1.1/webhooks', { operator, network, eventType: 'sms' });
      expect([operator, res.status]).toEqual([operator, operator === noRegistrations ? 400 : 200]);
    }
  });

  it('states the unpriced plan', async () => {
    const [plan] = stated(/One plan, `([^`]+)`, has no price configured/);
    const res = await s.post('/api/v1.1/plans/purchase', { iccid: s.sandbox.fixtures.physicalIccid, planId: plan });
    expect(res.body.error.code).toBe('PRICING_NOT_CONFIGURED');
  });

  it('states the team members, the SIM groups, the end users and the balances', async () => {
    const [members, plusMember] = stated(/(\w+) team members: .*?\(`([^`]+@[^`]+)`\)/);
    const team = await s.get('/api/v1.1/team-members?pageSize=100');
    expect(team.body.meta.total).toBe(WORDS[(members ?? '').toLowerCase()]);
    expect(team.body.data.map((m: { email: string }) => m.email)).toContain(plusMember);

    const [groups] = stated(/SIM groups named (.*?) \(case-sensitive/);
    const names = [...(groups ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) expect([name, (await s.get(`/api/v1.1/sim-groups/${encodeURIComponent(name)}`)).status]).toEqual([name, 200]);

    const [users, plusUser] = stated(/(\d+) end users \(one is `([^`]+)`\)/);
    const list = await s.get('/api/v1.1/users?pageSize=100');
    expect(list.body.meta.total).toBe(Number(users));
    expect(list.body.data.map((u: { email: string }) => u.email)).toContain(plusUser);

    const currencies = stated(/credit balances in `(\w+)` and `(\w+)`/);
    const balance = await s.get('/api/v1.1/credit-balance');
    expect(balance.body.data.creditBalance.map((b: { currency: string }) => b.currency).sort()).toEqual([...currencies].sort());
  });

  it('lists exactly the fixtures the sandbox serves', async () => {
    const [listed] = stated(/They include (.*?)\. /);
    const names = [...(listed ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1]);
    const fixtures = (await s.control('GET', '/_sandbox/fixtures')).body;
    expect(names.sort()).toEqual(Object.keys(fixtures).sort());
  });
});
