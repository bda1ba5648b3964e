/**
 * The size of a Cloudflare Worker that uses the package, as a partner ships it: the package
 * resolved by its workerd condition, gzip-compressed as Workers measures a script. Two bundlers:
 * esbuild minifying (what a partner who minifies uploads) and `wrangler deploy` as it bundles by
 * default, without minifying. Two Workers: `PartnerClient` alone, and with the webhook fetch
 * handler beside it.
 *
 * The budgets only go down: each is the size it was set at plus about 3 %, and never above the
 * goal of issue 36 for a Worker with the client alone (40 KiB minified, 60 KiB as wrangler
 * bundles). Raising one needs a line in the CHANGELOG saying why.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './built.js';
import { minifiedWorkerGzip } from '../helpers/worker-bundle.js';

const run = promisify(execFile);
const WRANGLER = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');

/**
 * Gzip bytes: set at 40,117 and 60,601 (client), 44,553 and 67,246 (client and webhook handler);
 * the client's as wrangler bundles it raised once, to 61,800, for the names of a call's endings,
 * and back to the goal, 60 KiB, once the SDK's check messages no longer carried zod's locale.
 */
const BUDGETS = {
  client: { minified: 40 * 1024, wrangler: 60 * 1024 },
  webhooks: { minified: 45_800, wrangler: 69_200 },
} as const;

const WORKERS: Record<keyof typeof BUDGETS, string> = {
  client: `import { PartnerClient } from 'mobile-partner-sdk';
export default { fetch: async () => new Response(typeof new PartnerClient({ baseUrl: 'https://api.example' }).sims.list) };`,
  webhooks: `import { PartnerClient } from 'mobile-partner-sdk';
import { createFetchHandler } from 'mobile-partner-sdk/webhooks';
const receive = createFetchHandler({ secret: 'whsec_x', onEvent: () => {} });
export default { fetch: async (request) => (request.method === 'POST' ? receive(request) : new Response(typeof new PartnerClient({ baseUrl: 'https://api.example' }).sims.list)) };`,
};

let app = '';

beforeAll(() => {
  ensureBuilt();
  app = mkdtempSync(join(tmpdir(), 'mps-worker-size-'));
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(root, join(app, 'node_modules', 'mobile-partner-sdk'), 'dir');
  for (const [name, source] of Object.entries(WORKERS)) writeFileSync(join(app, `${name}.mjs`), source);
}, 270_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

/** `wrangler deploy --dry-run`: the script wrangler would upload, as it bundles by default. */
async function wranglerGzip(name: string): Promise<number> {
  const outdir = join(app, `out-${name}`);
  await run(
    process.execPath,
    [WRANGLER, 'deploy', `${name}.mjs`, '--name', name, '--compatibility-date', '2025-09-01', '--dry-run', '--outdir', outdir],
    {
      cwd: app,
      timeout: 120_000,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG_PATH: join(outdir, 'logs'), XDG_CONFIG_HOME: join(app, '.config') },
    },
  );
  return gzipSync(readFileSync(join(outdir, `${name}.js`))).byteLength;
}

describe.each(Object.keys(WORKERS) as (keyof typeof BUDGETS)[])('a Worker importing %s', (name) => {
  it('stays within its budget minified by esbuild', async () => {
    const size = await minifiedWorkerGzip({ entryPoints: [join(app, `${name}.mjs`)] });
    console.info(`${name} Worker, esbuild --minify: ${size} bytes gzip (budget ${BUDGETS[name].minified})`);
    expect(size).toBeLessThanOrEqual(BUDGETS[name].minified);
  });

  it('stays within its budget as wrangler deploy bundles it', async () => {
    const size = await wranglerGzip(name);
    console.info(`${name} Worker, wrangler deploy: ${size} bytes gzip (budget ${BUDGETS[name].wrangler})`);
    expect(size).toBeLessThanOrEqual(BUDGETS[name].wrangler);
  }, 120_000);
});
