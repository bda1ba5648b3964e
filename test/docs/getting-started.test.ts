/**
 * docs/getting-started.md does what it shows: its ```ts blocks, in order, are one ES module that
 * plain `node` runs against the BUILT package, imported by its name from a project that depends on
 * it (the sandbox the page starts runs in that process, on a fixed seed). What each block prints
 * is the ```text block under it, line for line. In a shown output `…` stands for any text within
 * one line, for what no seed fixes (the port the system picks); everything else must match
 * exactly. The module must end by itself (client, receiver and sandbox closed) and write nothing
 * to stderr, and the page stays short.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../package/built.js';
import { fences, oneModulePages, pageModule, readPage, root } from './markdown.js';

const PAGE = 'docs/getting-started.md';
const MAX_LINES = 150;
/** A shown output is a check only while nearly all of it is literal. */
const MAX_PLACEHOLDERS = 2;
/** Longest the page's module may run before it counts as hung. */
const LIMIT_MS = 60_000;
/** Printed after each block by the test's copy of the module, so that each output is told apart. */
const MARK = '\u241e end of block';

interface Block {
  /** Page line of the block's first line of code. */
  line: number;
  code: string;
  /** The ```text blocks between this block and the next, joined: what it prints. */
  shown: string;
}

/** The page's ```ts blocks in order, each with the output the page shows under it. */
function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  for (const fence of fences(text)) {
    const [language] = fence.info.split(/\s+/);
    if (language === 'ts') blocks.push({ line: fence.line, code: fence.code, shown: '' });
    else if (language === 'text' && blocks.length > 0) {
      const last = blocks[blocks.length - 1] as Block;
      last.shown += `${fence.code}\n`;
    }
  }
  return blocks;
}

/** Whether `printed` is `shown`, where each `…` of `shown` stands for any text within one line. */
function matches(shown: string, printed: string): boolean {
  const pattern = shown
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^\\n]+?');
  return new RegExp(`^${pattern}$`).test(printed);
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runNode(script: string, cwd: string): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PARTNER_API_')));
  const child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const text = readPage(PAGE);
const blocks = blocksOf(text);
let project = '';
let run: Run;

beforeAll(async () => {
  ensureBuilt();
  // A partner's project: the page's file beside a node_modules that holds the package.
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
  project = mkdtempSync(join(root, 'node_modules', '.cache', 'getting-started-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(root, join(project, 'node_modules', 'mobile-partner-sdk'), 'dir');
  const marked = blocks.map((block, index) => `${block.code}\nconsole.log(${JSON.stringify(`${MARK} ${index}`)});`).join('\n');
  const { code } = await transform(marked, { loader: 'ts', format: 'esm', target: 'node20' });
  writeFileSync(join(project, 'start.mjs'), code);
  run = await runNode(join(project, 'start.mjs'), project);
}, 300_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe(PAGE, () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    expect(text.split('\n').length - (text.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(MAX_LINES);
  });

  it('is written as one file, so the snippet check compiles its blocks together', () => {
    expect(oneModulePages).toContain(PAGE);
    expect(blocks.map((block) => block.code).join('\n')).toBe(pageModule(text).code);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });

  it('runs to its end and exits by itself, with nothing on stderr', () => {
    expect(run.signal, `killed after ${LIMIT_MS} ms: the module did not end\n${run.stdout}`).toBeNull();
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
  });

  it(`shows outputs as printed, with at most ${MAX_PLACEHOLDERS} placeholders`, () => {
    expect(blocks.map((block) => block.shown.split('…').length - 1).reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(MAX_PLACEHOLDERS);
  });

  it('prints under each block what the page shows there', () => {
    const parts = run.stdout.split(new RegExp(`^${MARK} \\d+\\n`, 'm'));
    // Each block's output, or the page's text where it matches, so that a failure shows only what differs.
    const printed = blocks.map((block, index) => {
      const output = parts[index] ?? '';
      return { line: block.line, output: matches(block.shown, output) ? block.shown : output };
    });
    expect(printed).toEqual(blocks.map((block) => ({ line: block.line, output: block.shown })));
    expect(parts.slice(blocks.length).join(''), 'printed after the last block').toBe('');
  });
});
