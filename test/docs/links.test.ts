import { describe, expect, it } from 'vitest';
import { brokenLinks, markdownPages, readPage, repositoryPath } from './markdown.js';

describe('links between the README and the guides', () => {
  const pages = markdownPages();

  it('finds the README and the guides', () => {
    expect(pages).toContain('README.md');
    expect(pages.length).toBeGreaterThan(15);
  });

  it.each(pages)('every relative link of %s resolves, anchors included', (page) => {
    expect(brokenLinks(page, repositoryPath)).toEqual([]);
  });

  it('every guide is linked from the README', () => {
    const readme = readPage('README.md');
    const unlinked = pages.filter((page) => page !== 'README.md' && page !== 'docs/reference-index.md' && !readme.includes(`](${page}`));
    expect(unlinked).toEqual([]);
  });
});
