import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, markdownPages, proseLines, readPage, root } from './markdown.js';

const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

/** Every relative link of a page that does not resolve: a missing file, or an anchor no heading has. */
function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const { line, text } of proseLines(readPage(page))) {
    for (const match of text.matchAll(LINK)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : normalize(join(dirname(page), path));
      const where = `${page}:${line} → ${target}`;
      if (relative(root, join(root, file)).startsWith('..') || !existsSync(join(root, file))) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined || !file.endsWith('.md') || statSync(join(root, file)).isDirectory()) continue;
      if (!anchors(readPage(file)).has(anchor)) broken.push(`${where}: no heading with that anchor in ${file}`);
    }
  }
  return broken;
}

describe('links between the README and the guides', () => {
  const pages = markdownPages();

  it('finds the README and the guides', () => {
    expect(pages).toContain('README.md');
    expect(pages.length).toBeGreaterThan(15);
  });

  it.each(pages)('every relative link of %s resolves, anchors included', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('every guide is linked from the README', () => {
    const readme = readPage('README.md');
    const unlinked = pages.filter((page) => page !== 'README.md' && page !== 'docs/reference-index.md' && !readme.includes(`](${page}`));
    expect(unlinked).toEqual([]);
  });
});
