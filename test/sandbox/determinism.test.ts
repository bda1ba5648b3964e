import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { iso } from '../../src/sandbox/state/seed.js';

/** The seeded account as the API shows it, every page of every list, read through the sandbox's handler. */
async function snapshotOf(sandbox: Sandbox): Promise<Record<string, unknown>> {
  const ask = async (method: string, path: string, init: { token?: string; body?: unknown } = {}): Promise<any> => {
    const answer = await sandbox.handler(
      new Request(`http://sandbox.test${path}`, {
        method,
        headers: {
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
    );
    return answer.json();
  };
  const token = (await ask('POST', '/api/v1.1/auth/token', { body: { key: sandbox.credentials.key, secret: sandbox.credentials.secret } })).data
    .access_token as string;
  const every = async (path: string): Promise<unknown[]> => {
    const items: unknown[] = [];
    for (let page = 1; ; page += 1) {
      const answer = await ask('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}&pageSize=100`, { token });
      items.push(...(answer.data as unknown[]));
      if (page >= (answer.meta.totalPages as number)) return items;
    }
  };
  const subscriptions: unknown[] = [];
  for (const status of ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED'])
    subscriptions.push(...(await every(`/api/v1.1/subscriptions?status=${status}`)));
  return {
    sims: await every('/api/v1.1/sims'),
    subscriptions,
    portIns: await every('/api/v1.1/port-ins'),
    team: await every('/api/v1.1/team-members'),
    fixtures: sandbox.fixtures,
    credentials: sandbox.credentials,
  };
}

describe('determinism', () => {
  it('builds the same data and credentials from the same seed, and different data from another', async () => {
    const a = createSandbox({ seed: 1234, now: 0 });
    const b = createSandbox({ seed: 1234, now: 1_000_000 });
    const c = createSandbox({ seed: 4321 });
    const [first, second, other] = await Promise.all([snapshotOf(a), snapshotOf(b), snapshotOf(c)]);
    expect(JSON.stringify(first)).toBe(JSON.stringify(second));
    expect(JSON.stringify(first)).not.toBe(JSON.stringify(other));
    const sims = first.sims as Array<{ iccid: string; operator: string; isEsim: boolean }>;
    expect(sims).toHaveLength(300);
    expect(new Set(sims.map((s) => s.iccid)).size).toBe(300);
    expect(new Set(sims.map((s) => s.operator)).size).toBeGreaterThanOrEqual(3);
    expect(sims.some((s) => s.isEsim) && sims.some((s) => !s.isEsim)).toBe(true);
    // Every state a list can filter by has seeded subscriptions (CANCEL_SCHEDULED ones list as ACTIVE).
    const statuses = new Set((first.subscriptions as Array<{ status: string }>).map((s) => s.status));
    for (const status of ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED']) expect(statuses).toContain(status);
    const small = createSandbox({ simCount: 40 });
    expect((await snapshotOf(small)).sims).toHaveLength(40);
    await Promise.all([a.close(), b.close(), c.close(), small.close()]);
  });

  it('writes every seeded timestamp as Date#toISOString does, leap days and year ends included', () => {
    const DAY_MS = 86_400_000;
    const mismatches: number[] = [];
    const check = (ms: number): void => {
      if (iso(ms) !== new Date(ms).toISOString()) mismatches.push(ms);
    };
    // Every day from 1970 to 2200, each at another time of day; the edges of a day every 61 days.
    for (let day = 0; day < 84_000; day += 1) check(day * DAY_MS + ((day * 7_919_993) % DAY_MS));
    for (let day = 0; day < 84_000; day += 61) [day * DAY_MS, day * DAY_MS + DAY_MS - 1].forEach(check);
    for (const ms of [951_782_400_000, 4_107_542_400_000, 253_402_300_799_999]) check(ms); // 2000-02-29, 2100-03-01, 9999-12-31
    // Outside the arithmetic's range, and fractions: what Date writes.
    for (const ms of [-1, -DAY_MS * 400, 253_402_300_800_000, 1.5]) check(ms);
    expect(mismatches).toEqual([]);
  });
});
