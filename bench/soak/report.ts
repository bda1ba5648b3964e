/** Turns the outcomes, the commit journal and the exit of the client process into the soak's figures. */
import type { Outcome } from './operations.js';
import type { Operation } from './plan.js';

interface Goal {
  name: string;
  value: number | boolean;
  goal: string;
  met: boolean;
  /** false: reported only; the run's exit code ignores it (see `--strict`). */
  enforced: boolean;
}

interface KindFigures {
  operations: number;
  ok: number;
  failed: number;
  applied: { '0': number; '1': number; '2+': number };
}

export interface SoakReport {
  config: Record<string, unknown>;
  operations: number;
  settled: number;
  successes: number;
  failures: {
    total: number;
    byClass: Record<string, number>;
    /** By the error's `mayHaveSucceeded`: `true`, `false`, or `absent`. */
    byMayHaveSucceeded: Record<'true' | 'false' | 'absent', number>;
    untyped: number;
  };
  writes: {
    operations: number;
    applied: { '0': number; '1': number; '2+': number };
    /** Failed writes (the write call itself, not a later wait) the server applied anyway. */
    appliedButFailed: { total: number; withoutMayHaveSucceeded: number; byClass: Record<string, number> };
    /** Failed write calls by what the error said and what the server did. */
    failedCalls: {
      flagged: { applied: number; notApplied: number };
      unflagged: { applied: number; notApplied: number };
    };
    /** The first failed writes applied without `mayHaveSucceeded: true`, to look into. */
    unflaggedAppliedExamples: Array<{ id: string; kind: string; keying: string; result: string; status?: number; code?: string }>;
    /** Writes reported as 409 CONFLICT although the server applied them: a keyed retry met the original in flight. */
    conflictWhileApplied: number;
    /** Async writes applied whose later wait() failed, and how it failed. */
    appliedThenWaitFailed: { total: number; byClass: Record<string, number> };
    /** Writes reported as done that the server never applied: a lost write. */
    succeededButNotApplied: number;
  };
  byKind: Record<string, KindFigures>;
  faultsInjected: Record<string, number>;
  /** Partner-API requests the sandbox's fault dice rolled for (the client's attempts, polls and token exchanges). */
  requests: number;
  /** Share of those requests that met an injected fault. */
  faultShare: number;
  unhandledRejections: number;
  /** Process warnings of the client process, by name. */
  warnings: Record<string, number>;
  exitedOnItsOwn: boolean;
  exitCode: number | null;
  elapsedMs: number;
  goals: Goal[];
}

export interface SoakEvidence {
  config: Record<string, unknown>;
  operations: readonly Operation[];
  outcomes: readonly Outcome[];
  /** Commit counts by operation id (the sandbox's journal). */
  commits: Readonly<Record<string, number>>;
  counters: Readonly<Record<string, number>>;
  unhandledRejections: number;
  warnings: Readonly<Record<string, number>>;
  exitedOnItsOwn: boolean;
  exitCode: number | null;
  elapsedMs: number;
  /** Makes the tracked money-safety figures goals too. */
  strict: boolean;
}

const bump = (map: Record<string, number>, key: string): void => {
  map[key] = (map[key] ?? 0) + 1;
};

const bucket = (count: number): '0' | '1' | '2+' => (count === 0 ? '0' : count === 1 ? '1' : '2+');

export function summarise(evidence: SoakEvidence): SoakReport {
  const outcomes = new Map(evidence.outcomes.map((o) => [o.id, o]));
  const byClass: Record<string, number> = {};
  const byMayHaveSucceeded = { true: 0, false: 0, absent: 0 };
  const applied = { '0': 0, '1': 0, '2+': 0 };
  const appliedFailedByClass: Record<string, number> = {};
  const byKind: Record<string, KindFigures> = {};
  let successes = 0;
  let untyped = 0;
  let writes = 0;
  let appliedButFailed = 0;
  let withoutMayHaveSucceeded = 0;
  let conflictWhileApplied = 0;
  let appliedThenWaitFailed = 0;
  const waitFailedByClass: Record<string, number> = {};
  let succeededButNotApplied = 0;
  const failedCalls = { flagged: { applied: 0, notApplied: 0 }, unflagged: { applied: 0, notApplied: 0 } };
  const unflaggedAppliedExamples: SoakReport['writes']['unflaggedAppliedExamples'] = [];

  for (const op of evidence.operations) {
    const outcome = outcomes.get(op.id);
    const kindKey = `${op.kind} (${op.keying})`;
    const kind = (byKind[kindKey] ??= { operations: 0, ok: 0, failed: 0, applied: { '0': 0, '1': 0, '2+': 0 } });
    kind.operations += 1;
    if (!outcome) continue;
    const failed = outcome.result !== 'ok';
    if (failed) {
      kind.failed += 1;
      bump(byClass, outcome.result);
      if (outcome.result.startsWith('untyped:')) untyped += 1;
      byMayHaveSucceeded[outcome.mayHaveSucceeded === undefined ? 'absent' : outcome.mayHaveSucceeded ? 'true' : 'false'] += 1;
    } else {
      kind.ok += 1;
      successes += 1;
    }
    if (op.keying === 'read') continue;
    writes += 1;
    const count = evidence.commits[op.id] ?? 0;
    applied[bucket(count)] += 1;
    kind.applied[bucket(count)] += 1;
    if (!failed && count === 0) succeededButNotApplied += 1;
    if (!failed) continue;
    if (outcome.phase === 'wait') {
      if (count > 0) {
        appliedThenWaitFailed += 1;
        bump(waitFailedByClass, outcome.result);
      }
      continue;
    }
    const flagged = outcome.mayHaveSucceeded === true;
    failedCalls[flagged ? 'flagged' : 'unflagged'][count > 0 ? 'applied' : 'notApplied'] += 1;
    if (count === 0) continue;
    appliedButFailed += 1;
    bump(appliedFailedByClass, outcome.result);
    if (!flagged) {
      withoutMayHaveSucceeded += 1;
      if (unflaggedAppliedExamples.length < 20) {
        const { result, status, code } = outcome;
        unflaggedAppliedExamples.push({
          id: op.id,
          kind: op.kind,
          keying: op.keying,
          result,
          ...(status === undefined ? {} : { status }),
          ...(code === undefined ? {} : { code }),
        });
      }
    }
    // Its own request committed, so this 409 is the in-flight replay, not a state conflict.
    if (outcome.code === 'CONFLICT') conflictWhileApplied += 1;
  }

  const settled = evidence.outcomes.length;
  const requests = evidence.counters['faults.rolled'] ?? 0;
  const faultsInjected = Object.fromEntries(
    Object.entries(evidence.counters).filter(([name]) => name.startsWith('faults.') && name !== 'faults.rolled'),
  );
  const injected = Object.values(faultsInjected).reduce((a, b) => a + b, 0);
  const warningCount = Object.values(evidence.warnings).reduce((a, b) => a + b, 0);
  const failures = settled - successes;
  const goals: Goal[] = [
    {
      name: 'operations settled with a result or a typed error',
      value: settled - untyped,
      goal: `= ${evidence.operations.length}`,
      met: settled - untyped === evidence.operations.length,
      enforced: true,
    },
    { name: 'side effects applied twice or more', value: applied['2+'], goal: '= 0', met: applied['2+'] === 0, enforced: true },
    { name: 'writes reported done but never applied', value: succeededButNotApplied, goal: '= 0', met: succeededButNotApplied === 0, enforced: true },
    { name: 'unhandled rejections', value: evidence.unhandledRejections, goal: '= 0', met: evidence.unhandledRejections === 0, enforced: true },
    { name: 'client process exits on its own', value: evidence.exitedOnItsOwn, goal: 'yes', met: evidence.exitedOnItsOwn, enforced: true },
    {
      name: 'process warnings',
      value: warningCount,
      goal: '= 0',
      met: warningCount === 0,
      enforced: evidence.strict,
    },
    {
      name: 'failed writes applied, without mayHaveSucceeded',
      value: withoutMayHaveSucceeded,
      goal: '= 0',
      met: withoutMayHaveSucceeded === 0,
      enforced: evidence.strict,
    },
    {
      name: 'writes applied but reported 409 CONFLICT (in flight)',
      value: conflictWhileApplied,
      goal: '= 0',
      met: conflictWhileApplied === 0,
      enforced: evidence.strict,
    },
  ];

  return {
    config: evidence.config,
    operations: evidence.operations.length,
    settled,
    successes,
    failures: { total: failures, byClass: sortKeys(byClass), byMayHaveSucceeded, untyped },
    writes: {
      operations: writes,
      applied,
      appliedButFailed: { total: appliedButFailed, withoutMayHaveSucceeded, byClass: sortKeys(appliedFailedByClass) },
      failedCalls,
      unflaggedAppliedExamples,
      conflictWhileApplied,
      appliedThenWaitFailed: { total: appliedThenWaitFailed, byClass: sortKeys(waitFailedByClass) },
      succeededButNotApplied,
    },
    byKind,
    faultsInjected,
    requests,
    faultShare: requests === 0 ? 0 : Math.round((injected / requests) * 1000) / 1000,
    unhandledRejections: evidence.unhandledRejections,
    warnings: { ...evidence.warnings },
    exitedOnItsOwn: evidence.exitedOnItsOwn,
    exitCode: evidence.exitCode,
    elapsedMs: evidence.elapsedMs,
    goals,
  };
}

function sortKeys(map: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(map).sort(([, a], [, b]) => b - a));
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const fmt = (n: number): string => n.toLocaleString('en-US');

export function formatReport(report: SoakReport): string {
  const kinds = Object.entries(report.byKind).map(([kind, f]) => [
    kind,
    fmt(f.operations),
    fmt(f.ok),
    fmt(f.failed),
    kind.includes('(read)') ? '—' : `${f.applied['0']} / ${f.applied['1']} / ${f.applied['2+']}`,
  ]);
  const failures = Object.entries(report.failures.byClass).map(([name, n]) => [name, fmt(n)]);
  const goals = report.goals.map((g) => [g.name, String(g.value), g.goal, g.met ? 'yes' : 'NO', g.enforced ? 'goal' : 'tracked']);
  const m = report.failures.byMayHaveSucceeded;
  return [
    `${fmt(report.operations)} operations, ${fmt(report.successes)} succeeded, ${fmt(report.failures.total)} failed ` +
      `(mayHaveSucceeded true ${m.true}, false ${m.false}, absent ${m.absent}), ${fmt(report.elapsedMs)} ms`,
    `${fmt(report.requests)} requests, ${(report.faultShare * 100).toFixed(1)} % faulted: ${Object.entries(report.faultsInjected)
      .map(([k, v]) => `${k.slice('faults.'.length)} ${v}`)
      .join(', ')}`,
    '',
    table(['operation (keying)', 'ops', 'ok', 'failed', 'applied 0 / 1 / 2+'], kinds),
    '',
    table(['failure class', 'count'], failures.length > 0 ? failures : [['—', '0']]),
    '',
    `process warnings: ${
      Object.entries(report.warnings)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
    '',
    `writes: ${fmt(report.writes.operations)}; applied 0: ${report.writes.applied['0']}, 1: ${report.writes.applied['1']}, ` +
      `2+: ${report.writes.applied['2+']}; applied but failed: ${report.writes.appliedButFailed.total} ` +
      `(${
        Object.entries(report.writes.appliedButFailed.byClass)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }); ` +
      `failed write calls: mayHaveSucceeded and applied ${report.writes.failedCalls.flagged.applied}, ` +
      `mayHaveSucceeded but not applied ${report.writes.failedCalls.flagged.notApplied}, ` +
      `not flagged but applied ${report.writes.failedCalls.unflagged.applied}, ` +
      `not flagged and not applied ${report.writes.failedCalls.unflagged.notApplied}; ` +
      `applied, then wait() failed: ${report.writes.appliedThenWaitFailed.total} ` +
      `(${
        Object.entries(report.writes.appliedThenWaitFailed.byClass)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      })`,
    '',
    table(['goal', 'value', 'target', 'met', 'kind'], goals),
  ].join('\n');
}
