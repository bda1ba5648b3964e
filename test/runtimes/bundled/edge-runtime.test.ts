/**
 * The client in Vercel's Edge Runtime: the Worker-shaped entry bundled as Next.js bundles edge
 * code (export conditions edge-light, worker, browser; no Node built-in may resolve), then
 * evaluated in the `edge-runtime` package's EdgeVM, which offers only the edge globals, and
 * driven against a sandbox started here on 127.0.0.1 with the same smoke run as everywhere else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { EdgeRuntime } from 'edge-runtime';
import { describe, expect, it } from 'vitest';
import { expectCompleteSmokeRun } from '../expect-report.js';
import { usePartnerApp } from './partner-app.js';

const partner = usePartnerApp();

describe('in the Edge Runtime (EdgeVM)', () => {
  it('runs the partner smoke run from the edge-light build with no option set, and close() resolves', async () => {
    const outfile = join(partner.app.dir, 'edge.js');
    const result = await build({
      entryPoints: [partner.app.entry],
      bundle: true,
      format: 'iife',
      globalName: 'partnerSmoke',
      platform: 'neutral',
      conditions: ['edge-light', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      outfile,
      logLevel: 'silent',
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((file) => file.endsWith('dist/index.web.js'))).toBe(true);
    expect(inputs.filter((file) => /(^|\/)node_modules\/undici\//.test(file))).toEqual([]);

    const runtime = new EdgeRuntime({ initialCode: readFileSync(outfile, 'utf8') });
    // No Node global leaks into the VM: the client finds none of process, Buffer or require.
    expect(runtime.evaluate<string>('[typeof process, typeof Buffer, typeof require].join()')).toBe('undefined,undefined,undefined');
    const target = partner.target;
    const text = await runtime.evaluate<Promise<string>>(
      `partnerSmoke.default.fetch(new Request('http://partner-smoke.local/', { method: 'POST', body: ${JSON.stringify(target)} })).then((response) => response.text())`,
    );
    expectCompleteSmokeRun(JSON.parse(text) as Record<string, unknown>);
  }, 120_000);
});
