/**
 * docs/development.md's table of mutation configurations names, for each configuration file,
 * the modules it mutates: held equal to the `mutate` list of the file itself.
 */
import { describe, expect, it } from 'vitest';
import { codeSpans, findTable } from './markdown.js';

/** `src/core/`: a, b; `src/webhooks/`: c → src/core/a.ts, src/core/b.ts, src/webhooks/c.ts */
function listed(cell: string): string[] {
  return [...cell.matchAll(/`(src\/[\w/]+\/)`: ([^;`]+)/g)].flatMap(([, folder = '', names = '']) =>
    names.split(',').map((name) => `${folder}${name.trim()}.ts`),
  );
}

/** A Stryker configuration of the repository, as its file exports it. */
async function configuration(file: string): Promise<{ mutate: string[] }> {
  const loaded = (await import(new URL(`../../${file}`, import.meta.url).href)) as { default: { mutate: string[] } };
  return loaded.default;
}

describe("the development guide's table of mutation configurations", async () => {
  const { rows } = findTable(['Configuration', 'Mutates', 'Runs']);
  const files = ['test/mutation/stryker.config.mjs', 'test/mutation/stryker.redis.config.mjs'];
  const configs = Object.fromEntries(await Promise.all(files.map(async (file) => [file, await configuration(file)] as const)));

  it('has a row for each configuration', () => {
    expect(rows.map(([name = '']) => codeSpans(name)[0]).sort()).toEqual(Object.keys(configs).sort());
  });

  it.each(rows.map(([name = '', mutates = '']) => [codeSpans(name)[0] ?? '', mutates]))('%s mutates what its row says', (name, mutates) => {
    expect(listed(mutates).sort()).toEqual([...(configs[name]?.mutate ?? [])].sort());
  });
});
