/**
 * `tsx bench/profile.ts <figure> [--quick] [--top=25]` — runs one figure under `node --cpu-prof`
 * against a fresh bench server and prints the functions with the most self time (the profile is
 * kept in a temporary directory for Chrome DevTools or speedscope).
 * `tsx bench/profile.ts --file=<x.cpuprofile>` summarises an existing profile the same way.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './lib/client.js';
import type { FigureConfig } from './lib/figure.js';
import { startServer } from './lib/processes.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const top = Number(flag('top') ?? 25);
const given = flag('file');
const figure = given ? path.basename(given) : args[0];
if (!figure || (!given && !/^[a-z-]+$/.test(figure))) throw new Error('usage: tsx bench/profile.ts <figure> [--quick] [--top=N] | --file=<profile>');
const profilePath = given ?? (await profileFigure(figure, args.includes('--quick')));

async function profileFigure(name: string, quick: boolean): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `bench-profile-${name}-`));
  const server = await startServer<{ api: string; paged: string }>(['api', quick ? '2000' : '100000', '3', '100']);
  try {
    const config: FigureConfig = {
      quick,
      apiUrl: server.info.api,
      pagedUrl: server.info.paged,
      pageLatencyMs: 3,
      paginationTotal: quick ? 2_000 : 100_000,
    };
    const result = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
        '--import',
        'tsx',
        path.join(ROOT, 'bench/lib/child-entry.ts'),
        name,
        JSON.stringify(config),
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`figure failed: ${result.stderr}`);
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((entry) => entry.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  return path.join(dir, file);
}

const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<string, number>();
let totalMicros = 0;
profile.samples.forEach((id, index) => {
  const node = byId.get(id);
  const delta = profile.timeDeltas[index] ?? 0;
  totalMicros += delta;
  if (!node) return;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(`file://${ROOT}/`, '').replace(ROOT + '/', '')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  selfMicros.set(key, (selfMicros.get(key) ?? 0) + delta);
});
const rows = [...selfMicros.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
process.stdout.write(`self time of ${figure} (${(totalMicros / 1e6).toFixed(2)} s sampled), profile: ${profilePath}\n`);
for (const [name, micros] of rows) {
  process.stdout.write(`${((micros / totalMicros) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(6)} ms  ${name}\n`);
}
