/**
 * The guides ship in the package, so that the README's links work where a partner reads it: on
 * the npm page and in node_modules. Every relative link of every Markdown file the package ships
 * (README, CHANGELOG, docs/*.md) resolves to a file the package ships, anchors included. What the
 * package ships is npm's own list (`npm pack --dry-run`), read from the built package.
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../package/built.js';
import { brokenLinks, markdownPages, type PathKind, root } from './markdown.js';

let shipped: Set<string>;

/** What the packed package holds at a path: a file, a directory of its files, or nothing. */
function packagePath(path: string): PathKind {
  if (shipped.has(path)) return 'file';
  const prefix = `${path}/`;
  return [...shipped].some((file) => file.startsWith(prefix)) ? 'directory' : undefined;
}

beforeAll(() => {
  ensureBuilt();
  // --ignore-scripts: dist/ is fresh already, and prepack would rebuild it under other tests' feet.
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 180_000,
  });
  const [result] = JSON.parse(output) as Array<{ files: Array<{ path: string }> }>;
  if (!result) throw new Error('npm pack --dry-run reported no package');
  shipped = new Set(result.files.map((file) => file.path));
}, 300_000);

describe('the Markdown the package ships', () => {
  it('holds the README, the changelog and every guide of docs/ but the API reference index', () => {
    const guides = markdownPages().filter((page) => page !== 'docs/reference-index.md');
    expect([...shipped].filter((file) => file.endsWith('.md')).sort()).toEqual(['CHANGELOG.md', ...guides].sort());
  });

  it('links only to files the package ships, anchors included', () => {
    const pages = [...shipped].filter((file) => file.endsWith('.md')).sort();
    expect(pages.flatMap((page) => brokenLinks(page, packagePath))).toEqual([]);
  });
});
