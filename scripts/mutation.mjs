/**
 * `npm run test:mutation [-- <Stryker options>]`: Stryker over the modules that guard money and
 * events, first against the fast tier's tests of them (test/mutation/stryker.config.mjs), then
 * fleet mode's TypeScript side against test/redis/ on a real redis-server
 * (stryker.redis.config.mjs). See docs/development.md, "Mutation testing".
 *
 * Stryker 10 needs Node.js 22 or later: on an older Node this runs it under Node 22 fetched from
 * the npm registry (`npx -y -p node@22`), as CI does for its Node 22 runs.
 *
 * `--mutate <files>` (comma-separated, or repeated) narrows the run to those files, each sent to
 * the configuration that covers it. Such a run starts from the configuration's incremental file
 * (reports/) but writes its own (reports/mutation/), so that file keeps every mutated file's results.
 *
 * After each configuration, scripts/mutation-check.mjs holds its report to
 * test/mutation/equivalent-mutants.md: the run fails if a survivor is not listed there, or an
 * entry there has no survivor left (the code it named moved or changed).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);

const configs = [
  {
    name: 'fast tier',
    file: 'test/mutation/stryker.config.mjs',
    incrementalFile: 'reports/stryker-incremental.json',
    report: 'reports/mutation/mutation.json',
    covers: (file) => !file.startsWith('src/redis/'),
  },
  {
    name: 'Redis',
    file: 'test/mutation/stryker.redis.config.mjs',
    incrementalFile: 'reports/stryker-redis-incremental.json',
    report: 'reports/mutation/redis.json',
    covers: (file) => file.startsWith('src/redis/'),
  },
];

/** `--mutate` values taken out of the arguments; every other argument goes to Stryker as given. */
function splitArguments(args) {
  const mutate = [];
  const rest = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--mutate' || arg === '-m') mutate.push(...(args[++i] ?? '').split(','));
    else if (arg.startsWith('--mutate=')) mutate.push(...arg.slice('--mutate='.length).split(','));
    else rest.push(arg);
  }
  return { mutate: mutate.map((file) => file.trim().replace(/^\.\//, '')).filter(Boolean), rest };
}

const major = Number(process.versions.node.split('.')[0]);
const node = major >= 22 ? [process.execPath] : ['npx', '-y', '-p', 'node@22', '--', 'node'];
const stryker = path.join('node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const { mutate, rest } = splitArguments(process.argv.slice(2));

let failed = false;
for (const config of configs) {
  const args = ['run', config.file];
  if (mutate.length > 0) {
    const files = mutate.filter(config.covers);
    if (files.length === 0) continue;
    const partial = path.join('reports', 'mutation', path.basename(config.incrementalFile).replace('.json', '.partial.json'));
    mkdirSync(path.dirname(partial), { recursive: true });
    if (existsSync(config.incrementalFile)) copyFileSync(config.incrementalFile, partial);
    args.push('--mutate', files.join(','), '--incrementalFile', partial);
  }
  process.stdout.write(`\n==> mutation testing, ${config.name}: ${config.file}${major >= 22 ? '' : ' (on Node 22 from the npm registry)'}\n`);
  const [command, ...prefix] = node;
  const { status, error } = spawnSync(command, [...prefix, stryker, ...args, ...rest], { stdio: 'inherit' });
  if (error) throw error;
  if (status !== 0) process.exit(status ?? 1);
  // The run held to the list of equivalent mutants: each survivor it does not name is a missing test.
  // A narrowed run is held to the list for the files it mutated: the report also carries the
  // incremental file's results of the others, which this run did not test again.
  const only = mutate.length > 0 ? ['--only', mutate.filter(config.covers).join(',')] : [];
  const checked = spawnSync(process.execPath, ['scripts/mutation-check.mjs', ...only, config.report], { stdio: 'inherit' });
  if (checked.status !== 0) failed = true;
}
if (failed) process.exit(1);
