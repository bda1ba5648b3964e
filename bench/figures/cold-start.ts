/**
 * Figure 5: import time of the built package, each load in a fresh `node` (no tsx, no cache), for
 * `import()` of dist/index.js and `require()` of dist/index.cjs, against loading the package's
 * runtime dependencies alone the same way. A probe run then checks that importing does no fs, net
 * or dns I/O from loaded code and leaves no new active handle or timer behind.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DIST_INDEX, DIST_INDEX_CJS, ROOT } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { median } from '../lib/stats.js';

const run = promisify(execFile);
const PROBE = path.join(ROOT, 'bench/lib/io-probe.cjs');
const BUILTINS = new Set(builtinModules);

/**
 * The packages a build loads: bare specifiers of its static imports (ESM, following its own
 * chunks) or requires (CJS), Node's built-ins left out. Read from the build, so the baseline
 * follows the dependencies as they change (and a bundled one counts as ours).
 */
function dependenciesOf(entry: string, system: ModuleSystem, seen = new Set<string>()): string[] {
  if (seen.has(entry) || !existsSync(entry)) return [];
  seen.add(entry);
  const source = readFileSync(entry, 'utf8');
  const pattern = system === 'esm' ? /^import\s[^'"]*?['"]([^'"]+)['"]/gm : /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;
  const found = new Set<string>();
  for (const match of source.matchAll(pattern)) {
    const specifier = match[1] as string;
    if (specifier.startsWith('.')) {
      for (const dependency of dependenciesOf(path.resolve(path.dirname(entry), specifier), system, seen)) found.add(dependency);
    } else if (!specifier.startsWith('node:') && !BUILTINS.has(specifier)) {
      found.add(specifier);
    }
  }
  return [...found].sort();
}

type ModuleSystem = 'esm' | 'cjs';

// Timed in the child itself, from just before the first load to just after the last: wall time,
// and CPU time (user + system), which a machine loaded by other processes inflates far less.
const TIMED_TAIL =
  'const cpu = process.cpuUsage(c0); process.stdout.write(JSON.stringify({ wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 }));';
const TIMED: Record<ModuleSystem, string> = {
  esm: `const t0 = performance.now(); const c0 = process.cpuUsage(); for (const s of JSON.parse(process.argv[1])) await import(s); ${TIMED_TAIL}`,
  cjs: `const t0 = performance.now(); const c0 = process.cpuUsage(); for (const s of JSON.parse(process.argv[1])) require(s); ${TIMED_TAIL}`,
};

// The result goes out through fs.writeSync(1): touching process.stdout would itself open a handle.
const PROBED_TAIL =
  'await new Promise((resolve) => setImmediate(resolve));' +
  'const after = process.getActiveResourcesInfo();' +
  'for (const type of before) { const i = after.indexOf(type); if (i !== -1) after.splice(i, 1); }' +
  'fs.writeSync(1, JSON.stringify({ newResources: after, io: globalThis.__ioProbe.calls }));';
const PROBED: Record<ModuleSystem, string> = {
  esm: `const fs = await import('node:fs'); const before = process.getActiveResourcesInfo(); for (const s of JSON.parse(process.argv[1])) await import(s); ${PROBED_TAIL}`,
  cjs: `const fs = require('node:fs'); const before = process.getActiveResourcesInfo(); for (const s of JSON.parse(process.argv[1])) require(s); (async () => { ${PROBED_TAIL} })();`,
};

function nodeArgs(system: ModuleSystem, script: string, specifiers: string[], probe: boolean): string[] {
  return [...(probe ? ['--require', PROBE] : []), ...(system === 'esm' ? ['--input-type=module'] : []), '-e', script, JSON.stringify(specifiers)];
}

interface LoadTime {
  wallMs: number;
  cpuMs: number;
}

async function loadTime(system: ModuleSystem, specifiers: string[]): Promise<LoadTime> {
  const { stdout } = await run(process.execPath, nodeArgs(system, TIMED[system], specifiers, false), { cwd: ROOT });
  return JSON.parse(stdout) as LoadTime;
}

interface Probe {
  newResources: string[];
  io: { call: string; target: string; caller: string }[];
}

async function probe(system: ModuleSystem, specifiers: string[]): Promise<Probe> {
  const { stdout } = await run(process.execPath, nodeArgs(system, PROBED[system], specifiers, true), { cwd: ROOT });
  return JSON.parse(stdout) as Probe;
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const runs = config.quick ? 3 : 11;
  const packages: Record<ModuleSystem, { file: string; specifier: string; label: string }> = {
    esm: { file: DIST_INDEX, specifier: pathToFileURL(DIST_INDEX).href, label: 'import() of the ESM build' },
    cjs: { file: DIST_INDEX_CJS, specifier: DIST_INDEX_CJS, label: 'require() of the CJS build' },
  };
  const rows: Row[] = [];
  for (const system of ['esm', 'cjs'] as const) {
    const pkg = packages[system];
    const available = existsSync(pkg.file);
    const dependencies = dependenciesOf(pkg.file, system);
    const depsTimes: LoadTime[] = [];
    const pkgTimes: LoadTime[] = [];
    let problem: string | undefined = available ? undefined : `${path.relative(ROOT, pkg.file)} is not built`;
    for (let i = 0; i < runs; i++) {
      depsTimes.push(await loadTime(system, dependencies));
      if (!problem) {
        try {
          pkgTimes.push(await loadTime(system, [pkg.specifier]));
        } catch (error) {
          problem = `${pkg.label} fails (${
            String((error as { stderr?: string }).stderr ?? error)
              .trim()
              .split('\n')[0]
          })`;
        }
      }
    }
    const deps = median(depsTimes.map((time) => time.cpuMs));
    const figure = `5. cold start (CPU), ${pkg.label}`;
    const label = `${dependencies.join(' + ')} alone`;
    if (problem) {
      rows.push(skippedRow(`cold-start.${system}`, figure, 'adds ≤ 20 ms', problem, { value: deps, unit: 'ms', label }));
      rows.push(skippedRow(`cold-start.${system}.side-effects`, `5. ${pkg.label}: I/O + new handles/timers`, '0', problem));
      continue;
    }
    const ours = median(pkgTimes.map((time) => time.cpuMs));
    const oursWall = median(pkgTimes.map((time) => time.wallMs));
    const depsWall = median(depsTimes.map((time) => time.wallMs));
    rows.push({
      id: `cold-start.${system}`,
      figure,
      value: ours,
      baseline: deps,
      unit: 'ms',
      baselineLabel: label,
      ratio: ours / deps,
      goal: 'adds ≤ 20 ms',
      met: ours - deps <= 20,
      note:
        `our code adds ${(ours - deps).toFixed(1)} ms of CPU (median of ${runs} fresh processes each); ` +
        `wall time ${oursWall.toFixed(0)} ms vs ${depsWall.toFixed(0)} ms (adds ${(oursWall - depsWall).toFixed(1)} ms)`,
    });
    // What the dependencies do on their own (undici loads node:assert, which opens stderr when it
    // is a pipe) is subtracted: the figure is about our code.
    const found = await probe(system, [pkg.specifier]);
    const alone = await probe(system, dependencies);
    const newResources = [...found.newResources];
    for (const type of alone.newResources) {
      const index = newResources.indexOf(type);
      if (index !== -1) newResources.splice(index, 1);
    }
    const io = found.io.filter((call) => !call.caller.includes('/node_modules/'));
    const effects = io.length + newResources.length;
    const details = [
      ...io.map((call) => `${call.call}(${call.target}) from ${call.caller}`),
      ...newResources.map((type) => `new active resource ${type}`),
    ];
    rows.push({
      id: `cold-start.${system}.side-effects`,
      figure: `5. ${pkg.label}: I/O calls + new handles/timers beyond the deps'`,
      value: effects,
      baseline: null,
      unit: '',
      baselineLabel: '',
      ratio: null,
      goal: '0',
      met: effects === 0,
      ...(details.length > 0 ? { note: details.slice(0, 5).join('; ') } : {}),
    });
  }
  return rows;
}
