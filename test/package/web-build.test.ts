/**
 * The main entry as Workers, the Edge Runtime and browsers resolve it: each export condition
 * leads to dist/index.web.js, whose graph bundles with no Node module and no undici. Cheap
 * (esbuild, in-process); the runs inside workerd and the Edge Runtime are test/runtimes/bundled/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './built.js';

let workdir: string;

beforeAll(() => {
  ensureBuilt();
  workdir = mkdtempSync(join(tmpdir(), 'mps-web-build-'));
  mkdirSync(join(workdir, 'node_modules'));
  symlinkSync(root, join(workdir, 'node_modules', 'mobile-partner-sdk'), 'dir');
  writeFileSync(join(workdir, 'client.mjs'), `import { PartnerClient } from 'mobile-partner-sdk';\nexport default PartnerClient;\n`);
}, 270_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

async function bundle(conditions: string[]): Promise<{ inputs: string[]; code: string }> {
  const outfile = join(workdir, `client-${conditions.join('-')}.mjs`);
  // platform neutral: a Node built-in anywhere in the graph fails the build, as it does in wrangler without nodejs_compat.
  const result = await build({
    entryPoints: [join(workdir, 'client.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions,
    mainFields: ['module', 'main'],
    outfile,
    logLevel: 'silent',
    metafile: true,
  });
  return { inputs: Object.keys(result.metafile.inputs), code: readFileSync(outfile, 'utf8') };
}

describe('the main entry under the web export conditions', () => {
  it.each([['workerd'], ['worker'], ['edge-light'], ['browser']])(
    'resolves to dist/index.web.js under %s, with no undici and no Node module',
    async (condition) => {
      const { inputs, code } = await bundle([condition]);
      // Paths relative to the working directory: the package's own dist/ and node_modules/.
      expect(inputs).toContain('dist/index.web.js');
      expect(inputs.filter((file) => /(^|\/)node_modules\/undici\/|(^|\/)dist\/index\.js$/.test(file))).toEqual([]);
      // Code only: doc comments kept in the bundle may show an example's imports.
      expect(code.replace(/\/\*[\s\S]*?\*\//g, '')).not.toMatch(/\bfrom\s*["'](node:)?(crypto|http|fs|stream|net)["']/);
      // No OpenTelemetry instruments: the API cannot be loaded there (docs/observability.md).
      expect(code).not.toContain('partner.client.call.duration');
    },
  );

  it('is refused by the same bundler under the import condition alone, which leads to the Node build and undici', async () => {
    await expect(bundle([])).rejects.toThrow(/undici|node:|Could not resolve/);
  });
});
