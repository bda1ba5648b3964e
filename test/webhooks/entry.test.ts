import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as main from '../../src/index.js';
import * as webhooks from '../../src/webhooks/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Relative specifiers of every way a module can load another: `import … from`, `export … from`,
 * a bare `import '…'` (side effects only), `import('…')` and `require('…')`.
 */
const IMPORT_FORMS = [
  /(?:import|export)[^'"]*?from\s*['"](\.[^'"]+)['"]/g,
  /\bimport\s*['"](\.[^'"]+)['"]/g,
  /\b(?:import|require)\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g,
];

function relativeImports(source: string): string[] {
  return IMPORT_FORMS.flatMap((form) => [...source.matchAll(form)].map((match) => match[1] ?? ''));
}

/** Every source file reachable from `entry` through relative imports. */
function reachable(entry: string, base = root): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  };
  visit(join(base, entry));
  return [...seen].map((file) => relative(base, file)).sort();
}

describe('mobile-partner-sdk/webhooks entry', () => {
  it('pulls in no client, transport or resource code', () => {
    const files = reachable('src/webhooks/index.ts');
    expect(files).toContain('src/webhooks/verify.ts');
    const outside = files.filter((file) => !file.startsWith('src/webhooks/'));
    // The error classes, the code unions they are typed with, the list of default numbers, the
    // refusal of unknown options and its wording, and the shared modules that import nothing: the
    // grammar of header numbers (a delivery's Content-Length), that of integer options, and the
    // voice-stream receiver's server starter; the event schemas' builders (built on first use, their
    // objects with zod's compiled parser). Nothing of the pipeline.
    expect(outside).toEqual([
      'src/core/compiled-objects.ts',
      'src/core/defaults.ts',
      'src/core/error-codes.ts',
      'src/core/errors.ts',
      'src/core/unknown-options.ts',
      'src/schemas/lazy.ts',
      'src/schemas/objects.ts',
      'src/shared/http-grammar.ts',
      'src/shared/integer-option.ts',
      'src/shared/listen.ts',
      'src/shared/option-names.ts',
    ]);
  });

  it('sees client code however it is imported, so the check above cannot be dodged', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'entry-'));
    try {
      writeFileSync(join(fixture, 'client.ts'), 'export const client = 1;\n');
      const forms = {
        named: "import { client } from './client.js';",
        typeOnly: "import type { client } from './client.js';",
        reexport: "export * from './client.js';",
        sideEffect: "import './client.js';",
        dynamic: "const load = () => import('./client.js');",
        multiline: "import {\n  client,\n} from './client.js';",
      };
      for (const [name, line] of Object.entries(forms)) {
        writeFileSync(join(fixture, `${name}.ts`), `${line}\n`);
        expect(reachable(`${name}.ts`, fixture), name).toContain('client.ts');
      }
    } finally {
      rmSync(fixture, { recursive: true, force: true });
    }
  });

  it('runs the WHATWG handler and the async forms on no Node module and no Node global', () => {
    for (const entry of ['src/webhooks/adapters/fetch.ts', 'src/webhooks/verify-async.ts', 'src/webhooks/events-async.ts', 'src/webhooks/web.ts']) {
      const files = reachable(entry);
      expect(files).toContain('src/webhooks/signature-check.ts');
      for (const file of files) {
        const source = readFileSync(join(root, file), 'utf8');
        // Imports of code only: a doc comment's example imports the package as a partner would.
        const packages = [...source.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/(?:from|import|require\()\s*['"]([^'".][^'"]*)['"]/g)].map(
          (match) => match[1],
        );
        // zod (the event schemas: zod/mini, its English messages, and zod itself for the one schema
        // exported in its classic API) runs anywhere; nothing else may be imported.
        expect(
          packages.filter((name) => name !== 'zod' && !name?.startsWith('zod/')),
          `${file} (from ${entry})`,
        ).toEqual([]);
        // Code only: doc comments may show Node examples. `globalThis.process?.` (guarded) is fine.
        const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
        expect(code, file).not.toMatch(/\bBuffer\.|(?<![.])\bprocess\.|\brequire\(/);
      }
      expect(
        // The voice stream and the audio helpers need Node; the voice.test.completed schema does not.
        files.some((file) => /verify\.ts$|events\.ts$|voice-(?!test-completed-schema)|wav|sign\.ts$/.test(file)),
        entry,
      ).toBe(false);
    }
  });

  it('shares its helpers and error class with the main entry', () => {
    expect(main.verifySignature).toBe(webhooks.verifySignature);
    expect(main.verifySignatureAsync).toBe(webhooks.verifySignatureAsync);
    expect(main.constructEventAsync).toBe(webhooks.constructEventAsync);
    expect(main.signPayload).toBe(webhooks.signPayload);
    expect(main.constructEvent).toBe(webhooks.constructEvent);
    expect(main.WebhookSignatureError).toBe(webhooks.WebhookSignatureError);
  });
});
