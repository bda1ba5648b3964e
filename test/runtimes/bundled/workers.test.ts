/**
 * The client in Cloudflare Workers, as a partner deploys it: the Worker is bundled by wrangler
 * (`deploy --dry-run --outdir`, the package resolved by its workerd condition) and run in workerd
 * through miniflare, once without and once with `nodejs_compat`, against a sandbox started here
 * on 127.0.0.1. The Worker runs the same smoke run as Bun and Deno, with no client option set.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Miniflare } from 'miniflare';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCompleteSmokeRun } from '../expect-report.js';
import { usePartnerApp } from './partner-app.js';

const run = promisify(execFile);
const WRANGLER = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
const COMPATIBILITY_DATE = '2025-09-01';
/**
 * The gzip size this smoke Worker may reach: every export of the client and webhook entries and
 * the smoke run itself, set at 96,789 bytes plus 3 %. It only goes down: raising it needs a line
 * in the CHANGELOG saying why. A Worker with the client alone, and one with the webhook fetch
 * handler beside it, have budgets of their own (test/package/worker-size.test.ts).
 */
const MAX_WORKER_GZIP_BYTES = 99_600;

const partner = usePartnerApp();

/** wrangler's own bundle of `entry`, as `wrangler deploy` would upload it; its esbuild inputs. */
async function wranglerBundle(entry: string, flags: string[], outdir: string): Promise<{ script: string; inputs: string[] }> {
  const args = [WRANGLER, 'deploy', entry, '--name', 'partner-smoke', '--compatibility-date', COMPATIBILITY_DATE, '--dry-run'];
  for (const flag of flags) args.push('--compatibility-flags', flag);
  args.push('--outdir', outdir, '--metafile', join(outdir, 'meta.json'));
  await run(process.execPath, args, {
    cwd: partner.app.dir,
    timeout: 120_000,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: 'false',
      WRANGLER_LOG_PATH: join(outdir, 'logs'),
      XDG_CONFIG_HOME: join(partner.app.dir, '.config'),
    },
  });
  const meta = JSON.parse(readFileSync(join(outdir, 'meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
  return { script: join(outdir, 'worker.js'), inputs: Object.keys(meta.inputs) };
}

describe.each([
  ['without nodejs_compat', []],
  ['with nodejs_compat', ['nodejs_compat']],
])('in workerd %s', (_label, flags: string[]) => {
  let bundled: { script: string; inputs: string[] };

  beforeAll(async () => {
    bundled = await wranglerBundle(partner.app.entry, flags, join(partner.app.dir, `out-${flags.join('-') || 'plain'}`));
  }, 120_000);

  it('bundles with wrangler from the web build, with no undici', () => {
    const { script, inputs } = bundled;
    expect(inputs.some((file) => file.endsWith('dist/index.web.js'))).toBe(true);
    expect(inputs.filter((file) => /(^|\/)node_modules\/undici\/|(^|\/)dist\/index\.js$/.test(file))).toEqual([]);
    // With the flag, wrangler adds Node polyfills of its own; without it, nothing may import a Node module.
    if (flags.length === 0) {
      // Code only: doc comments kept in the bundle may show an example's imports.
      const code = readFileSync(script, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
      expect(code).not.toMatch(/\bfrom\s*["'](node:)?[a-z_/]+["']/);
      expect(gzipSync(readFileSync(script)).byteLength).toBeLessThanOrEqual(MAX_WORKER_GZIP_BYTES);
    }
  });

  it('starts an operation in one request and finishes it in another, from its resume token alone', async () => {
    const { script } = bundled;
    const worker = () =>
      new Miniflare({
        host: '127.0.0.1',
        modules: true,
        scriptPath: script,
        modulesRoot: dirname(script),
        compatibilityDate: COMPATIBILITY_DATE,
        compatibilityFlags: flags,
      });
    const step = async (body: Record<string, unknown>): Promise<Record<string, unknown>> => {
      // A Worker instance per request: nothing carries over but what the request brings.
      const instance = worker();
      try {
        const response = await instance.dispatchFetch('http://partner-smoke.local/', {
          method: 'POST',
          body: JSON.stringify({ ...(JSON.parse(partner.target) as object), ...body }),
        });
        const text = await response.text();
        expect(response.status, text).toBe(200);
        return JSON.parse(text) as Record<string, unknown>;
      } finally {
        await instance.dispose();
      }
    };
    const { token } = await step({ step: 'start' });
    expect(token).toMatch(/^v1\.[\w-]+$/);
    const done = await step({ step: 'finish', token });
    expect(done).toMatchObject({ status: 'COMPLETED', iccid: expect.stringMatching(/^89\d+$/) });
  }, 120_000);

  it('runs the partner smoke run with no option set, and close() resolves', async () => {
    const { script } = bundled;
    const worker = new Miniflare({
      host: '127.0.0.1',
      modules: true,
      scriptPath: script,
      // Module paths are read relative to this folder, which must hold the script.
      modulesRoot: dirname(script),
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: flags,
    });
    try {
      const response = await worker.dispatchFetch('http://partner-smoke.local/', {
        method: 'POST',
        body: partner.target,
      });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      expectCompleteSmokeRun(JSON.parse(text) as Record<string, unknown>);
    } finally {
      await worker.dispose();
    }
  }, 120_000);
});
