/**
 * `npm run soak`: a reproducible chaos run. A sandbox with about 20 % injected faults of every
 * shape (resets before and after the commit, 500, 503, HTML 502, 429 storms, hangs) serves
 * 5,000 mixed operations made through the public PartnerClient in a child process; the
 * sandbox's commit journal tells how often each write was applied.
 *
 * Flags: --quick (500 operations, the CI run), --ops=<n>, --seed=<n>, --out=<file>, --strict
 * (the money-safety figures become goals too). Exits 1 when a goal is missed.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatReport } from './soak/report.js';
import { runSoak } from './soak/run.js';
import { FULL, QUICK } from './soak/sandbox.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const integer = (name: string, fallback: number): number => {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer`);
  return value;
};

const quick = args.includes('--quick');
const base = quick ? QUICK : FULL;
const config = { ...base, operations: integer('ops', base.operations), seed: integer('seed', base.seed) };
const out = flag('out') ?? (quick ? path.join(os.tmpdir(), 'mobile-partner-sdk-soak-quick.json') : path.join(ROOT, 'bench/soak-results.json'));

const { stderr, ...report } = await runSoak(config, {
  deadlineMs: quick ? 60_000 : 300_000,
  exitGraceMs: 10_000,
  strict: args.includes('--strict'),
});
const stamped = { ranAt: new Date().toISOString(), node: process.version, ...report };
writeFileSync(out, `${JSON.stringify(stamped, null, 2)}\n`);
console.log(formatReport(report));
console.log(`\nwritten to ${out}`);
if (stderr.trim() !== '') console.log(`\nclient process stderr (first lines):\n${stderr.trim().split('\n').slice(0, 10).join('\n')}`);
if (report.goals.some((g) => g.enforced && !g.met)) process.exitCode = 1;
