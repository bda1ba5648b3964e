/**
 * Every ```ts block of the README and the guides, and every ```ts example in a doc comment of
 * src/, compiles as a partner's own file: one ES module each, `strict`, `nodenext`, importing the
 * BUILT package by its name (resolved through package.json `exports` to dist/, as an installed
 * package is). A block fenced ```ts partial (a fragment) is skipped and counted. The blocks of a
 * page written as one file (`oneModulePages`) are compiled together, in order, as that file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../package/built.js';
import { fences, markdownPages, oneModulePages, pageModule, readPage, root } from './markdown.js';

/** Inside the package, so that `mobile-partner-sdk` resolves to the package itself, through `exports`. */
const work = join(root, 'node_modules', '.cache', 'doc-snippets');
const README_MAX_LINES = 300;

interface Snippet {
  /** Where the block's first line of code is: `docs/errors.md:12`. */
  origin: string;
  file: string;
  code: string;
  /** Lines of `code` before the block's first line in its source (0 for Markdown). */
  offset: number;
  /** For a one-module page, whose origin is the page alone: the page line of each line of `code`. */
  lines?: number[];
}

const snippets: Snippet[] = [];
const unknownFences: string[] = [];
let skipped = 0;

function collectMarkdown(): void {
  for (const page of markdownPages()) {
    const text = readPage(page);
    const oneModule = oneModulePages.includes(page);
    for (const fence of fences(text)) {
      const [language, ...meta] = fence.info.split(/\s+/);
      if (language !== 'ts' && language !== 'typescript') continue;
      const where = `${page}:${fence.line}`;
      if (meta.length === 1 && meta[0] === 'partial') skipped += 1;
      else if (meta.length > 0) unknownFences.push(`${where}: \`\`\`${fence.info}`);
      else if (!oneModule) snippets.push({ origin: where, file: `snippet-${snippets.length}.ts`, code: fence.code, offset: 0 });
    }
    if (oneModule) snippets.push({ origin: page, file: `snippet-${snippets.length}.ts`, offset: 0, ...pageModule(text) });
  }
}

/** The ```ts block of each `@example` in the doc comments of src/. */
function collectDocComments(): void {
  const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
  for (const name of sources.sort()) {
    const lines = readFileSync(join(root, 'src', name), 'utf8').split('\n');
    for (let index = 0; index < lines.length; index += 1) {
      // Only `@example` blocks: other fences in comments are sketches of a call, not whole files.
      if (!/^\s*\* ```ts\s*$/.test(lines[index] ?? '') || !/@example/.test(lines[index - 1] ?? '')) continue;
      const start = index + 1;
      const code: string[] = [];
      for (index = start; index < lines.length && !/^\s*\* ```\s*$/.test(lines[index] ?? ''); index += 1) {
        code.push((lines[index] ?? '').replace(/^\s*\* ?/, ''));
      }
      snippets.push({ origin: `src/${name}:${start + 1}`, file: `snippet-${snippets.length}.ts`, code: code.join('\n'), offset: 0 });
    }
  }
}

let diagnostics = '';

beforeAll(() => {
  ensureBuilt();
  collectMarkdown();
  collectDocComments();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // `export {}` keeps a block without imports a module (top-level await); it goes after the code so lines match.
  for (const snippet of snippets) writeFileSync(join(work, snippet.file), `${snippet.code}\nexport {};\n`);
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
        skipLibCheck: true,
        // Kept beside the package's other caches: a rerun rechecks only what changed.
        incremental: true,
        tsBuildInfoFile: join(root, 'node_modules', '.cache', 'doc-snippets.tsbuildinfo'),
      },
      files: snippets.map((snippet) => snippet.file),
    }),
  );
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', work, '--pretty', 'false'], {
      encoding: 'utf8',
      timeout: 180_000,
    });
  } catch (error) {
    diagnostics = String((error as { stdout?: string }).stdout ?? error);
  }
  console.log(`documentation snippets: ${snippets.length} blocks checked, ${skipped} skipped (partial)`);
}, 240_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** The compiler's errors, each named by the Markdown page (or source file) and line it comes from. */
function errorsBySource(): string[] {
  const byFile = new Map(snippets.map((snippet) => [snippet.file, snippet]));
  return diagnostics
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const match = /^(?:.*[\\/])?(snippet-\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
      const snippet = match ? byFile.get(match[1] ?? '') : undefined;
      if (!match || !snippet) return line;
      if (snippet.lines) return `${snippet.origin}:${snippet.lines[Number(match[2]) - 1] ?? '?'}:${match[3]} ${match[4]}`;
      const [page, first] = snippet.origin.split(/:(?=\d+$)/);
      return `${page}:${Number(first) + Number(match[2]) - 1 - snippet.offset}:${match[3]} ${match[4]}`;
    });
}

describe('documentation snippets', () => {
  it('finds the blocks of the README, the guides and the doc comments', () => {
    expect(snippets.filter((snippet) => snippet.origin.startsWith('README.md')).length).toBeGreaterThan(0);
    expect(snippets.filter((snippet) => snippet.origin.startsWith('docs/')).length).toBeGreaterThan(20);
    expect(snippets.filter((snippet) => snippet.origin.startsWith('src/')).length).toBeGreaterThan(3);
  });

  it('marks a fragment only with the known word `partial`', () => {
    expect(unknownFences).toEqual([]);
  });

  it('compiles every ```ts block against the built package, as a partner file would', () => {
    expect(errorsBySource()).toEqual([]);
  });

  it(`keeps the README to at most ${README_MAX_LINES} lines`, () => {
    expect(readPage('README.md').split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });
});
