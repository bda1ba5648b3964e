/**
 * Holds a Stryker run to test/mutation/equivalent-mutants.md: for each file of a JSON report, the
 * score Stryker gives, the survivors the list names (by `line:column`, under the file's heading or
 * in "Killed outside Stryker's run"), and the score once those are set aside. Fails naming every
 * survivor the list does not name (a missing test) and every entry no survivor answers to (an
 * entry left behind when the code moved), so the list stays the list of what no test can kill.
 *
 * `node scripts/mutation-check.mjs [--only file,…] [report.json …]`; by default the reports
 * `npm run test:mutation` writes (reports/mutation/mutation.json, reports/mutation/redis.json)
 * that exist; `--only` keeps to the files a narrowed run mutated. Run by scripts/mutation.mjs
 * after each configuration.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const LIST = path.join(root, 'test', 'mutation', 'equivalent-mutants.md');
const DEFAULT_REPORTS = ['reports/mutation/mutation.json', 'reports/mutation/redis.json'].map((file) => path.join(root, file));

/** Each row of the list that names locations: its file, its "Where" and its "Mutant" cells. */
export function listedRows(markdown) {
  const rows = [];
  let heading;
  for (const line of markdown.split('\n')) {
    const file = /^### (src\/\S+)/.exec(line);
    if (file) heading = file[1];
    else if (/^## /.test(line)) heading = undefined;
    if (!line.startsWith('| ') || line.startsWith('| Where') || line.startsWith('|---')) continue;
    const [, where = '', mutant = ''] = line.split(/(?<!\\)\|/);
    // Rows outside a file's heading name their file first ("src/core/rate-limit.ts 103:26").
    const named = /^\s*(src\/\S+)/.exec(where)?.[1] ?? heading;
    if (named && /\d+:\d+/.test(where)) rows.push({ file: named, where: where.trim(), mutant });
  }
  return rows;
}

/** `file → Set of "line:column"` the list names. */
export function listedLocations(markdown) {
  const listed = new Map();
  for (const { file, where } of listedRows(markdown)) {
    const set = listed.get(file) ?? new Set();
    for (const [, line, column] of where.matchAll(/(\d+):(\d+)/g)) set.add(`${line}:${column}`);
    listed.set(file, set);
  }
  return listed;
}

const SURVIVED = new Set(['Survived', 'NoCoverage']);
const KILLED = new Set(['Killed', 'Timeout']);

/** Per file of `report`: its counts, its survivors named and not, and the list's entries left behind. */
export function check(report, listed) {
  return Object.entries(report.files).map(([file, { mutants }]) => {
    const relative = path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
    const names = listed.get(relative) ?? new Set();
    const killed = mutants.filter((mutant) => KILLED.has(mutant.status)).length;
    const survivors = mutants.filter((mutant) => SURVIVED.has(mutant.status));
    const at = (mutant) => `${mutant.location.start.line}:${mutant.location.start.column}`;
    const unlisted = survivors.filter((mutant) => !names.has(at(mutant)));
    const answered = new Set(survivors.map(at));
    const stale = [...names].filter((where) => !answered.has(where));
    const listedCount = survivors.length - unlisted.length;
    const valid = killed + survivors.length;
    return {
      file: relative,
      mutants: mutants.length,
      killed,
      listed: listedCount,
      unlisted,
      stale,
      score: valid === 0 ? 100 : (100 * killed) / valid,
      scoreWithoutListed: valid - listedCount === 0 ? 100 : (100 * killed) / (valid - listedCount),
    };
  });
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--only');
  const only = at < 0 ? undefined : new Set((args.splice(at, 2)[1] ?? '').split(','));
  const reports = args.map((file) => path.resolve(file));
  const files = reports.length > 0 ? reports : DEFAULT_REPORTS.filter((file) => existsSync(file));
  const missing = files.length === 0 ? ['reports/mutation/*.json'] : files.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    process.stderr.write(`No mutation report at ${missing.join(', ')}: run \`npm run test:mutation\` first.\n`);
    process.exit(1);
  }
  const listed = listedLocations(readFileSync(LIST, 'utf8'));
  let failed = false;
  for (const file of files) {
    const results = check(JSON.parse(readFileSync(file, 'utf8')), listed).filter((result) => !only || only.has(result.file));
    process.stdout.write(`\n${path.relative(root, file)} against test/mutation/equivalent-mutants.md\n`);
    process.stdout.write('| File | Mutants | Score | Listed equivalent | Score without them | Not listed |\n|---|---|---|---|---|---|\n');
    for (const result of results) {
      process.stdout.write(
        `| ${result.file} | ${result.mutants} | ${result.score.toFixed(1)} % | ${result.listed} | ${result.scoreWithoutListed.toFixed(1)} % | ${result.unlisted.length} |\n`,
      );
    }
    for (const result of results) {
      for (const mutant of result.unlisted) {
        failed = true;
        const { line, column } = mutant.location.start;
        process.stdout.write(`  not listed: ${result.file}:${line}:${column} ${mutant.mutatorName} → ${JSON.stringify(mutant.replacement ?? '')}\n`);
      }
      // An entry is left behind only where the run tested the file: a narrowed run says nothing of the others.
      for (const where of result.stale) {
        failed = true;
        process.stdout.write(`  listed, but no mutant survives there: ${result.file}:${where}\n`);
      }
    }
  }
  if (failed) {
    process.stdout.write(
      '\nEach survivor not listed is a missing test, or an equivalent mutant to list with its reason; move or drop the entries left behind.\n',
    );
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
