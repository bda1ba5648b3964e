/**
 * Reading the project's Markdown as GitHub renders it: the pages (README.md and docs/*.md), their
 * fenced code blocks, their links, and the anchors their headings get.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { root } from '../package/built.js';

export { root };

/** README.md and every guide page, as paths relative to the repository root. */
export function markdownPages(): string[] {
  const guides = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...guides.sort()];
}

export interface Fence {
  /** The info string after the backticks, e.g. `ts` or `ts partial`. */
  info: string;
  /** 1-based line of the first line of code (the line after the opening fence). */
  line: number;
  code: string;
}

/** The fenced code blocks of a page, in order. */
export function fences(text: string): Fence[] {
  const found: Fence[] = [];
  let open: { info: string; line: number; lines: string[] } | undefined;
  text.split('\n').forEach((line, index) => {
    if (open) {
      if (/^```\s*$/.test(line)) {
        found.push({ info: open.info, line: open.line, code: open.lines.join('\n') });
        open = undefined;
      } else {
        open.lines.push(line);
      }
    } else {
      const start = /^```(.*)$/.exec(line);
      if (start) open = { info: (start[1] ?? '').trim(), line: index + 2, lines: [] };
    }
  });
  return found;
}

/**
 * Pages written as one file a partner pastes and runs: their ```ts blocks, in order, continue one
 * another and together are one ES module, rather than one file each.
 */
export const oneModulePages: readonly string[] = ['docs/getting-started.md'];

/** A ```ts block the snippet checks read: TypeScript with no word after the language (`partial` marks a fragment). */
function isCheckedTs(fence: Fence): boolean {
  const [language, ...meta] = fence.info.split(/\s+/);
  return (language === 'ts' || language === 'typescript') && meta.length === 0;
}

/** A one-module page's ```ts blocks joined in order, with the page line of each line of code. */
export function pageModule(text: string): { code: string; lines: number[] } {
  const blocks = fences(text).filter(isCheckedTs);
  return {
    code: blocks.map((block) => block.code).join('\n'),
    lines: blocks.flatMap((block) => block.code.split('\n').map((_, index) => block.line + index)),
  };
}

/** The page's lines outside code fences, with their 1-based numbers. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const prose: Array<{ line: number; text: string }> = [];
  let inFence = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) inFence = !inFence;
    else if (!inFence) prose.push({ line: index + 1, text: line });
  });
  return prose;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a page: its headings' slugs, a repeated slug numbered `-1`, `-2` … as GitHub does. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

export function readPage(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

/** What a set of files holds at a path: a file, a directory (of files), or nothing. */
export type PathKind = 'file' | 'directory' | undefined;

/**
 * Every relative link of `page` (a path relative to the repository root) that does not resolve in
 * a set of files: a missing file, a path leaving the set's root, or an anchor no heading of the
 * target page has. `kind` says what the set holds at a path; `read` gives a Markdown file's text.
 */
export function brokenLinks(page: string, kind: (path: string) => PathKind, read: (path: string) => string = readPage): string[] {
  const broken: string[] = [];
  for (const { line, text } of proseLines(read(page))) {
    for (const match of text.matchAll(LINK)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), path)).replace(/\/$/, '');
      const where = `${page}:${line} → ${target}`;
      const found = file.startsWith('../') || file === '..' ? undefined : kind(file);
      if (found === undefined) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined || !file.endsWith('.md') || found === 'directory') continue;
      if (!anchors(read(file)).has(anchor)) broken.push(`${where}: no heading with that anchor in ${file}`);
    }
  }
  return broken;
}

/** What the repository holds at a path relative to its root. */
export function repositoryPath(path: string): PathKind {
  const full = join(root, path);
  if (!existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? 'directory' : 'file';
}

/** A table of a page: where it is, and the cells of each row under its header. */
export interface Table {
  /** `README.md` or `docs/….md`. */
  page: string;
  /** 1-based line of its header row. */
  line: number;
  header: string[];
  /** The cells of each row, trimmed; `\|` read as `|`. */
  rows: string[][];
  /** Rows whose number of cells is not the header's (GitHub drops or pads cells), as `page:line`. */
  unevenRows: string[];
}

/** A table row's cells as GitHub splits them: at each `|` not escaped as `\|`, inside code spans too. */
function cells(row: string): string[] {
  const inner = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** Every table of README.md and docs/*.md (outside code fences, in list items too), in page order. */
export function allTables(): Table[] {
  const tables: Table[] = [];
  for (const page of markdownPages()) {
    // A table may sit in a list item, indented.
    const lines = proseLines(readPage(page)).map(({ line, text }) => ({ line, text: text.trimStart() }));
    lines.forEach(({ line, text }, index) => {
      const delimiter = lines[index + 1]?.text ?? '';
      const previous = lines[index - 1]?.text ?? '';
      if (!text.startsWith('|') || previous.startsWith('|') || !/^\|(?:\s*:?-+:?\s*\|)+\s*$/.test(delimiter)) return;
      const header = cells(text);
      const rows: string[][] = [];
      const unevenRows: string[] = [];
      for (const { line: rowLine, text: row } of lines.slice(index + 2)) {
        if (!row.startsWith('|')) break;
        const found = cells(row);
        if (found.length !== header.length) unevenRows.push(`${page}:${rowLine}`);
        rows.push(found);
      }
      tables.push({ page, line, header, rows, unevenRows });
    });
  }
  return tables;
}

const sameHeader = (table: Table, header: readonly string[]): boolean =>
  table.header.length === header.length && table.header.every((cell, index) => cell === header[index]);

const headerRow = (header: readonly string[]): string => `| ${header.join(' | ')} |`;

/**
 * Every table whose header row is exactly `header`, on whichever page holds it: guides move
 * between pages, their header rows stay. Fails when no page has one.
 */
export function findTables(header: readonly string[]): Table[] {
  const found = allTables().filter((table) => sameHeader(table, header));
  if (found.length === 0) throw new Error(`no page of README.md or docs/ has a table headed ${headerRow(header)}`);
  const uneven = found.flatMap((table) => table.unevenRows);
  if (uneven.length > 0) throw new Error(`rows of another number of cells than their header (an unescaped | in a cell?): ${uneven.join(', ')}`);
  return found;
}

/** The one table headed `header`, on whichever page holds it; fails when none is, or more than one. */
export function findTable(header: readonly string[]): Table {
  const found = findTables(header);
  if (found.length > 1) {
    throw new Error(`${found.length} tables are headed ${headerRow(header)}: ${found.map((table) => `${table.page}:${table.line}`).join(', ')}`);
  }
  return found[0] as Table;
}

/** The text of each code span of a cell, in order: "`key`, `secret`" → ['key', 'secret']. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/(`+)(.+?)\1/g)].map((match) => (match[2] ?? '').trim());
}
