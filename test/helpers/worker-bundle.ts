/**
 * How a Worker bundles the package: esbuild resolving it by its `workerd` condition, as wrangler
 * does. Shared by the size budgets (test/package/worker-size.test.ts) and the bench's Worker
 * figures, so that the budget and the figure measure the same bundle.
 */
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';

/** The resolution of a Worker's imports: ES modules, no platform, the workerd export condition first. */
export const WORKERD_RESOLUTION = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  conditions: ['workerd', 'worker', 'browser'],
  logLevel: 'silent',
} as const satisfies BuildOptions;

/** The gzip size of `input` (an entry file or stdin) bundled for a Worker and minified. */
export async function minifiedWorkerGzip(input: Pick<BuildOptions, 'entryPoints' | 'stdin'>): Promise<number> {
  const result = await build({ ...WORKERD_RESOLUTION, ...input, minify: true, write: false });
  return gzipSync(result.outputFiles[0]?.contents ?? new Uint8Array()).byteLength;
}
