import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { iso } from '../../src/sandbox/state/seed.js';

describe('determinism', () => {
  it('builds the same data and credentials from the same seed, and different data from another', async () => {
    const a = createSandbox({ seed: 1234, now: 0 });
    const b = createSandbox({ seed: 1234, now: 1_000_000 });
    const c = createSandbox({ seed: 4321 });
    const snapshot = (s: typeof a) =>
      JSON.stringify({
        sims: [...s.ctx.state.sims.values()],
        subscriptions: s.ctx.state.subscriptions,
        plans: [...s.ctx.state.plans.values()],
        team: [...s.ctx.state.teamMembers.values()],
        users: [...s.ctx.state.users.values()],
        portIns: s.ctx.state.portIns,
        credentials: s.credentials,
      });
    expect(snapshot(a)).toBe(snapshot(b));
    expect(snapshot(a)).not.toBe(snapshot(c));
    const sims = [...a.ctx.state.sims.values()];
    expect(sims).toHaveLength(300);
    expect(new Set(sims.map((s) => s.iccid)).size).toBe(300);
    expect(new Set(sims.map((s) => s.operator)).size).toBeGreaterThanOrEqual(3);
    expect(sims.some((s) => s.isEsim) && sims.some((s) => !s.isEsim)).toBe(true);
    expect(new Set(a.ctx.state.subscriptions.map((s) => s.status))).toEqual(
      new Set(['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED', 'CANCEL_SCHEDULED']),
    );
    const small = createSandbox({ simCount: 40 });
    expect(small.ctx.state.sims.size).toBe(40);
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
