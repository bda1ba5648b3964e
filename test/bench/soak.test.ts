import { describe, expect, it } from 'vitest';
import type { Operation } from '../../bench/soak/plan.js';
import { summarise } from '../../bench/soak/report.js';
import type { SoakEvidence } from '../../bench/soak/report.js';
import { runSoak } from '../../bench/soak/run.js';
import { QUICK } from '../../bench/soak/sandbox.js';

describe('npm run soak', () => {
  it('settles every operation with a result or a typed error, applies no write twice, and the client process exits on its own', async () => {
    // Sub-second real waits only: injected 429s say Retry-After: 0, hangs last 600 ms.
    const report = await runSoak(
      {
        ...QUICK,
        operations: 150,
        concurrency: 16,
        timeoutMs: 300,
        hangMs: 600,
        throttleRetryAfterSeconds: 0,
        transactionDelayMs: 10,
      },
      { deadlineMs: 90_000, exitGraceMs: 10_000, strict: false },
    );
    expect(report.stderr).not.toMatch(/soak child failed/);
    expect(report.settled).toBe(150);
    expect(report.failures.untyped).toBe(0);
    expect(report.writes.operations).toBeGreaterThan(50);
    expect(report.writes.applied['2+']).toBe(0);
    expect(report.writes.succeededButNotApplied).toBe(0);
    expect(report.unhandledRejections).toBe(0);
    expect(report.exitedOnItsOwn).toBe(true);
    expect(report.goals.filter((g) => g.enforced && !g.met)).toEqual([]);
    expect(report.faultShare).toBeGreaterThan(0.1);
    expect(report.faultShare).toBeLessThan(0.35);
    for (const shape of ['reset', 'error', 'resetAfter', 'unavailable', 'gateway', 'throttle']) {
      expect(report.faultsInjected[`faults.${shape}`], shape).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe('soak figures', () => {
  const op = (id: string, keying: Operation['keying'], kind: Operation['kind'] = 'sms.send'): Operation => ({ id, kind, keying, args: [] });
  const evidence = (overrides: Partial<SoakEvidence>): SoakEvidence => ({
    config: {},
    operations: [],
    outcomes: [],
    commits: {},
    counters: {},
    unhandledRejections: 0,
    warnings: {},
    exitedOnItsOwn: true,
    exitCode: 0,
    elapsedMs: 1,
    strict: false,
    ...overrides,
  });

  it('counts a write applied twice as a missed goal, and a failed write the server applied as tracked', () => {
    const report = summarise(
      evidence({
        operations: [
          op('a', 'none', 'plans.purchase'),
          op('b', 'spec'),
          op('c', 'none', 'teamMembers.create'),
          op('d', 'read', 'sims.list'),
          op('e', 'spec'),
        ],
        outcomes: [
          { id: 'a', result: 'ok' },
          { id: 'b', result: 'ConflictError', status: 409, code: 'CONFLICT' },
          { id: 'c', result: 'ConnectionError', mayHaveSucceeded: true },
          { id: 'd', result: 'ok' },
          { id: 'e', result: 'ok' },
        ],
        commits: { a: 2, b: 1, c: 1 },
      }),
    );
    expect(report.writes.applied).toEqual({ '0': 1, '1': 2, '2+': 1 });
    expect(report.writes.succeededButNotApplied).toBe(1);
    expect(report.writes.appliedButFailed).toEqual({ total: 2, withoutMayHaveSucceeded: 1, byClass: { ConflictError: 1, ConnectionError: 1 } });
    expect(report.writes.conflictWhileApplied).toBe(1);
    expect(report.writes.failedCalls).toEqual({ flagged: { applied: 1, notApplied: 0 }, unflagged: { applied: 1, notApplied: 0 } });
    expect(report.writes.unflaggedAppliedExamples).toEqual([
      { id: 'b', kind: 'sms.send', keying: 'spec', result: 'ConflictError', status: 409, code: 'CONFLICT' },
    ]);
    expect(report.failures.byMayHaveSucceeded).toEqual({ true: 1, false: 0, absent: 1 });
    const missed = report.goals.filter((g) => !g.met).map((g) => [g.name, g.enforced]);
    expect(missed).toEqual([
      ['side effects applied twice or more', true],
      ['writes reported done but never applied', true],
      ['failed writes applied, without mayHaveSucceeded', false],
      ['writes applied but reported 409 CONFLICT (in flight)', false],
    ]);
  });

  it('misses the settle goal for an operation that never settled or failed with an untyped error', () => {
    const report = summarise(
      evidence({
        operations: [op('a', 'read', 'sims.list'), op('b', 'read', 'sims.list'), op('c', 'read', 'sims.list')],
        outcomes: [
          { id: 'a', result: 'ok' },
          { id: 'b', result: 'untyped:TypeError' },
        ],
        exitedOnItsOwn: false,
        strict: true,
      }),
    );
    const missed = report.goals.filter((g) => !g.met).map((g) => g.name);
    expect(missed).toEqual(['operations settled with a result or a typed error', 'client process exits on its own']);
    expect(report.goals.every((g) => g.enforced)).toBe(true);
  });
});
