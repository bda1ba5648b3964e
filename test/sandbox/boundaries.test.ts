import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const src = (path: string) => resolve(root, 'src', path);

/** Every module specifier a file imports or re-exports, static or dynamic. */
function specifiers(file: string): string[] {
  // Block comments dropped: a doc comment's example imports the package as a partner would.
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const found = [
    ...text.matchAll(/(?:^|[\s;])(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/(?:^|[\s;])import\s*\(?\s*['"]([^'"]+)['"]/gm),
  ];
  return found.map((m) => m[1] as string);
}

/** The files reachable from `entries` through relative imports, and the packages they import. */
function importGraph(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of specifiers(file)) {
      if (!spec.startsWith('.')) {
        packages.add(spec);
        continue;
      }
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (!existsSync(target)) throw new Error(`${relative(root, file)} imports ${spec}, which does not exist`);
      queue.push(target);
    }
  }
  return { files, packages };
}

describe('module boundaries', () => {
  it('the sandbox never imports the client, its transport, resources or webhook receivers', () => {
    const { files, packages } = importGraph([src('sandbox/index.ts'), src('sandbox/cli.ts')]);
    // shared/ holds the grammars both sides read from the spec (E.164, route templates) and the
    // wording of an unknown option; it imports nothing.
    const outside = [...files].map((f) => relative(src('.'), f)).filter((f) => !f.startsWith('sandbox/') && !f.startsWith('shared/'));
    expect(outside).toEqual([]);
    expect(files.size).toBeGreaterThan(40);
    const runtime = [...packages].filter((p) => !p.startsWith('node:')).map((p) => p.split('/')[0]);
    // hono is bundled into the sandbox's own files; zod and undici (its outbound WebSocket) are
    // dependencies of the package; ws, an optional peer, is never needed by the sandbox.
    expect(new Set(runtime)).toEqual(new Set(['hono', 'zod', 'undici']));
  });

  it('the client and webhook entries never pull the sandbox in', () => {
    const { files } = importGraph([src('index.ts'), src('webhooks/index.ts')]);
    expect(files.size).toBeGreaterThan(5);
    expect([...files].filter((f) => f.startsWith(src('sandbox')))).toEqual([]);
  });

  it('shared grammars import nothing, so sharing them couples neither side to the other', () => {
    for (const file of ['shared/e164.ts', 'shared/route-template.ts', 'shared/option-names.ts']) {
      const { files, packages } = importGraph([src(file)]);
      expect([...files].map((f) => relative(src('.'), f))).toEqual([file]);
      expect([...packages]).toEqual([]);
    }
  });
});
