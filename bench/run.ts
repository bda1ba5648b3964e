/**
 * `npm run bench` — measures the client against baselines run in the same run, on loopback.
 * `npm run bench -- --quick` is the CI smoke run: short, small, only proves every benchmark works.
 * Flags: --quick, --no-build (use the last build as it is), --only=<figure,...>, --out=<file>.
 * Always exits 0 once the table is printed: unmet goals are reported (met: false), not failed.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './lib/client.js';
import type { FigureConfig } from './lib/figure.js';
import { type RunningServer, runFigure, startServer } from './lib/processes.js';
import { describeMachine, type Row, skippedRow, tableLines } from './lib/report.js';

interface Figure {
  name: string;
  title: string;
  needs: 'api' | 'sandbox' | 'none';
}

const FIGURES: Figure[] = [
  { name: 'throughput', title: '1. request throughput', needs: 'api' },
  { name: 'overhead', title: '2. per-call overhead', needs: 'none' },
  { name: 'pagination', title: '3. auto-pagination', needs: 'api' },
  { name: 'webhooks', title: '4. webhook verification', needs: 'none' },
  { name: 'cold-start', title: '5. cold start', needs: 'none' },
  { name: 'many-clients', title: '6. many accounts', needs: 'api' },
  { name: 'rate-limit', title: '7. rate-limit utilisation', needs: 'sandbox' },
  { name: 'inspector', title: '8. sandbox inspector', needs: 'none' },
  { name: 'workers-bundle', title: '9. Workers bundle size', needs: 'none' },
  { name: 'tracing', title: '10. OpenTelemetry tracing', needs: 'api' },
  { name: 'fleet', title: '11. fleet on Redis', needs: 'api' },
  { name: 'workers-cpu', title: '12. CPU in workerd', needs: 'none' },
];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const noBuild = args.includes('--no-build');
const only = args
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const out =
  args.find((arg) => arg.startsWith('--out='))?.slice('--out='.length) ??
  (quick ? path.join(os.tmpdir(), 'mobile-partner-sdk-bench-quick.json') : path.join(ROOT, 'bench/results.json'));

const PAGE_LATENCY_MS = 3;
const PAGINATION_TOTAL = quick ? 2_000 : 100_000;
/**
 * Sandbox windows: scaled so the account limit of 120 per window is 120 per second, and once more
 * at 120 per 5 s, where one window's worth of answers (the sandbox's service time) weighs less
 * against the window, as it does against the spec's 60 s. Quick: 120 per 250 ms only.
 */
const SANDBOX_WINDOWS_MS = quick ? [250] : [1_000, 5_000];
const FIGURE_TIMEOUT_MS = quick ? 45_000 : 600_000;
const SNAPSHOT_DIR = path.join(ROOT, 'bench/.snapshot/dist');

function newestMtime(file: string): number {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, entry)));
  return newest;
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * The build under test. The bench builds its own copy into bench/.snapshot/dist (git-ignored)
 * rather than using dist/: in a shared working tree another `npm run build` empties dist/ at any
 * moment (tsup's clean), which would turn a figure into "not built" halfway through a run. The
 * snapshot is rebuilt when older than src/, package.json or tsup.config.ts; a failed build leaves
 * the previous snapshot (or dist/) in use, and says so. BENCH_DIST_DIR overrides all of this.
 */
function chooseBuild(): { dir: string; note: string } {
  if (process.env.BENCH_DIST_DIR) return { dir: path.resolve(process.env.BENCH_DIST_DIR), note: 'BENCH_DIST_DIR given, not rebuilt' };
  const fallback = (): string => (mtimeOf(path.join(SNAPSHOT_DIR, 'index.js')) > 0 ? SNAPSHOT_DIR : path.join(ROOT, 'dist'));
  if (noBuild) return { dir: fallback(), note: '--no-build: not rebuilt' };
  const sources = Math.max(newestMtime(path.join(ROOT, 'src')), mtimeOf(path.join(ROOT, 'package.json')), mtimeOf(path.join(ROOT, 'tsup.config.ts')));
  if (mtimeOf(path.join(SNAPSHOT_DIR, 'index.js')) >= sources) return { dir: SNAPSHOT_DIR, note: 'snapshot newer than src/' };
  process.stderr.write(`building the package into ${path.relative(ROOT, SNAPSHOT_DIR)} (tsup, no .d.ts) ...\n`);
  const result = spawnSync(path.join(ROOT, 'node_modules/.bin/tsup'), ['--out-dir', SNAPSHOT_DIR, '--no-dts'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status === 0) return { dir: SNAPSHOT_DIR, note: 'built from src/ for this run' };
  const tail = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-3).join(' / ');
  return { dir: fallback(), note: `build failed (${tail}); the previous build is used` };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = describeMachine();
  const build = chooseBuild();
  // Every child (figures, the sandbox) loads the package from the chosen build.
  process.env.BENCH_DIST_DIR = build.dir;
  const distLabel = path.relative(ROOT, build.dir) || build.dir;
  const rows: Row[] = [];
  const selected = FIGURES.filter((figure) => !only || only.includes(figure.name));

  let api: RunningServer<{ api: string; paged: string }> | undefined;
  let sandbox: RunningServer<{ url: string; key: string; secret: string }> | undefined;
  try {
    if (selected.some((figure) => figure.needs === 'api')) {
      api = await startServer(['api', String(PAGINATION_TOTAL), String(PAGE_LATENCY_MS), '100']);
    }
    for (const figure of selected) {
      for (const windowMs of figure.needs === 'sandbox' ? SANDBOX_WINDOWS_MS : [undefined]) {
        const began = performance.now();
        process.stderr.write(`${figure.title}${windowMs ? ` (${windowMs} ms windows)` : ''} ...`);
        const config: FigureConfig = {
          quick,
          apiUrl: api?.info.api ?? '',
          pagedUrl: api?.info.paged ?? '',
          pageLatencyMs: PAGE_LATENCY_MS,
          paginationTotal: PAGINATION_TOTAL,
        };
        let sandboxProblem: string | undefined;
        if (windowMs !== undefined) {
          try {
            sandbox = await startServer(['sandbox', String(windowMs)]);
            config.sandbox = { ...sandbox.info, rateLimitWindowMs: windowMs };
          } catch (error) {
            sandboxProblem = `the sandbox does not start (${(error as Error).message.slice(0, 160)})`;
          }
        }
        try {
          if (sandboxProblem) throw new Error(sandboxProblem);
          rows.push(...(await runFigure(figure.name, config, FIGURE_TIMEOUT_MS)));
        } catch (error) {
          rows.push(skippedRow(figure.name, figure.title, '—', (error as Error).message.slice(0, 300)));
        } finally {
          await sandbox?.stop();
          sandbox = undefined;
        }
        process.stderr.write(` ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
      }
    }
  } finally {
    await api?.stop();
    await sandbox?.stop();
  }

  const lines = tableLines(rows);
  const finishedAt = new Date();
  const header = [
    `mobile-partner-sdk bench — ${quick ? 'QUICK smoke run (small counts, goals not meaningful)' : 'full run'}, ${finishedAt.toISOString()}`,
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.os}, Node ${machine.node}, load average at start ${machine.loadAverageAtStart.join(' ')}`,
    `package under test: ${distLabel}/index.js (ESM; cold start also index.cjs), ${distLabel}/webhooks/index.js, sandbox ${distLabel}/sandbox/index.cjs (${build.note}); bench code through tsx`,
    'servers: bench/server.ts and the sandbox in their own processes on 127.0.0.1; each figure in a fresh node process',
  ];
  process.stdout.write(`\n${header.join('\n')}\n\n${lines.join('\n')}\n`);
  const notes = rows.filter((row) => row.note).map((row) => `- ${row.figure.trim()}: ${row.note}`);
  if (notes.length > 0) process.stdout.write(`\nnotes:\n${notes.join('\n')}\n`);
  const unmet = rows.filter((row) => row.met === false).length;
  const skipped = rows.filter((row) => row.skipped).length;
  process.stdout.write(
    `\n${unmet} goal(s) not met, ${skipped} row(s) not available; JSON written to ${out.startsWith(ROOT) ? path.relative(ROOT, out) : out}\n`,
  );
  writeFileSync(
    out,
    `${JSON.stringify({ mode: quick ? 'quick' : 'full', startedAt, finishedAt, machine, build, sources: header.slice(2), rows }, null, 2)}\n`,
  );
}

await main();
