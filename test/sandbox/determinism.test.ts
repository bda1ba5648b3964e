import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';

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
});
