/**
 * Figure 9: the size of a Cloudflare Worker that uses the client, as a partner deploys it:
 * bundled by wrangler (`deploy --dry-run --outdir`, no compatibility flag, the package resolved
 * by its workerd condition), gzip-compressed as Workers measures a script. Rows:
 *
 * a. `import { PartnerClient } from 'mobile-partner-sdk'` alone (goal of issue 36: ≤ 60 KiB);
 * b. the same plus `createFetchHandler` from 'mobile-partner-sdk/webhooks' (examples/workers);
 * c. how much of (a) is zod, as esbuild's metafile counts bytes in the output (uncompressed);
 * d. zod/mini against zod: a probe bundling the zod constructs the schemas use (objects,
 *    strings, numbers, enums, arrays, unions, optional/nullable, catch, checks) through 'zod'
 *    and through 'zod/mini' (which the schemas use), gzip;
 * e. (a) and (b) bundled by esbuild minifying, under the same conditions (goal for (a): ≤ 40 KiB).
 *
 * test/package/worker-size.test.ts holds the same four sizes to their budgets in CI.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ROOT } from '../lib/client.js';
import { partnerApp } from '../lib/worker-app.js';
import { minifiedWorkerGzip } from '../../test/helpers/worker-bundle.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';

const run = promisify(execFile);
const WRANGLER = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
const GOAL_KIB = 60;
const MINIFIED_GOAL_KIB = 40;

const ENTRIES = {
  client: `import { PartnerClient } from 'mobile-partner-sdk';
export default { fetch: async () => new Response(typeof new PartnerClient({ baseUrl: 'https://api.example' }).sims.list) };`,
  webhooks: `import { PartnerClient } from 'mobile-partner-sdk';
import { createFetchHandler } from 'mobile-partner-sdk/webhooks';
const receive = createFetchHandler({ secret: 'whsec_x', onEvent: () => {} });
export default { fetch: async (request) => (request.method === 'POST' ? receive(request) : new Response(typeof new PartnerClient({ baseUrl: 'https://api.example' }).sims.list)) };`,
};

const PROBE = (from: string): string => `import * as z from '${from}';
const text = z.string().check(z.minLength(1), z.maxLength(64));
const money = z.number().check(z.nonnegative());
const record = z.looseObject({ iccid: text, status: z.enum(['ACTIVE', 'SUSPENDED']), balance: z.optional(money), note: z.nullable(z.string()), tags: z.array(text), kind: z.union([z.literal('a'), z.literal('b')]), at: z.catch(z.optional(z.string()), undefined) });
const strict = z.strictObject({ planId: text, email: z.email(), data: z.record(z.string(), z.unknown()) });
export const parse = (value) => [record.safeParse(value), strict.safeParse(value), z.discriminatedUnion('type', [z.object({ type: z.literal('x') }), z.object({ type: z.literal('y') })]).safeParse(value)];`;

function kib(bytes: number): number {
  return Math.round((bytes / 1024) * 10) / 10;
}

async function wranglerGzip(dir: string, name: string, source: string): Promise<{ gzip: number; zodShare: number }> {
  const entry = path.join(dir, `${name}.mjs`);
  const outdir = path.join(dir, `out-${name}`);
  writeFileSync(entry, source);
  await run(
    process.execPath,
    [
      WRANGLER,
      'deploy',
      entry,
      '--name',
      name,
      '--compatibility-date',
      '2025-09-01',
      '--dry-run',
      '--outdir',
      outdir,
      '--metafile',
      path.join(outdir, 'meta.json'),
    ],
    {
      cwd: dir,
      timeout: 120_000,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG_PATH: path.join(dir, 'logs'), XDG_CONFIG_HOME: path.join(dir, '.config') },
    },
  );
  const meta = JSON.parse(readFileSync(path.join(outdir, 'meta.json'), 'utf8')) as {
    outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const output = Object.values(meta.outputs).find((item) => item.entryPoint !== undefined);
  const inputs = Object.entries(output?.inputs ?? {});
  const total = inputs.reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
  const zod = inputs.filter(([file]) => file.includes('node_modules/zod/')).reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
  return { gzip: gzipSync(readFileSync(path.join(outdir, `${name}.js`))).byteLength, zodShare: total > 0 ? zod / total : 0 };
}

async function probeGzip(from: string): Promise<number> {
  const result = await build({
    stdin: { contents: PROBE(from), resolveDir: ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
  });
  return gzipSync(result.outputFiles[0]?.contents ?? new Uint8Array()).byteLength;
}

export async function measure(_config: FigureConfig): Promise<Row[]> {
  const dir = partnerApp('mps-bench-worker-');
  const rows: Row[] = [];
  const info = { baseline: null, baselineLabel: '', ratio: null, goal: '', met: null };
  try {
    try {
      const client = await wranglerGzip(dir, 'client', ENTRIES.client);
      rows.push({
        id: 'workers-bundle.client',
        figure: '9a. Worker bundle: PartnerClient only (gzip)',
        value: kib(client.gzip),
        unit: 'KiB',
        ...info,
        goal: `≤ ${GOAL_KIB} KiB`,
        met: client.gzip <= GOAL_KIB * 1024,
      });
      const both = await wranglerGzip(dir, 'webhooks', ENTRIES.webhooks);
      rows.push({
        id: 'workers-bundle.webhooks',
        figure: '9b. Worker bundle: client + createFetchHandler (gzip)',
        value: kib(both.gzip),
        unit: 'KiB',
        ...info,
      });
      rows.push({
        id: 'workers-bundle.zod-share',
        figure: '9c. zod in the 9a bundle (uncompressed bytes)',
        value: Math.round(client.zodShare * 100),
        unit: '%',
        ...info,
      });
    } catch (error) {
      rows.push(
        skippedRow(
          'workers-bundle.client',
          '9a. Worker bundle: PartnerClient only (gzip)',
          `≤ ${GOAL_KIB} KiB`,
          (error as Error).message.slice(0, 300),
        ),
      );
    }
    try {
      const client = await minifiedWorkerGzip({ stdin: { contents: ENTRIES.client, resolveDir: dir, loader: 'js' } });
      rows.push({
        id: 'workers-bundle.client-minified',
        figure: '9e. Worker bundle: PartnerClient only, minified (gzip)',
        value: kib(client),
        unit: 'KiB',
        ...info,
        goal: `≤ ${MINIFIED_GOAL_KIB} KiB`,
        met: client <= MINIFIED_GOAL_KIB * 1024,
      });
      rows.push({
        id: 'workers-bundle.webhooks-minified',
        figure: '9e. Worker bundle: client + createFetchHandler, minified (gzip)',
        value: kib(await minifiedWorkerGzip({ stdin: { contents: ENTRIES.webhooks, resolveDir: dir, loader: 'js' } })),
        unit: 'KiB',
        ...info,
      });
    } catch (error) {
      rows.push(
        skippedRow(
          'workers-bundle.client-minified',
          '9e. Worker bundle: PartnerClient only, minified (gzip)',
          `≤ ${MINIFIED_GOAL_KIB} KiB`,
          (error as Error).message.slice(0, 300),
        ),
      );
    }
    const classic = await probeGzip('zod');
    const mini = await probeGzip('zod/mini');
    rows.push({
      id: 'workers-bundle.zod-mini',
      figure: '9d. zod/mini instead of zod (schema probe, gzip)',
      value: kib(mini),
      unit: 'KiB',
      baseline: kib(classic),
      baselineLabel: 'zod',
      ratio: mini / classic,
      goal: '',
      met: null,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
