import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt, root } from '../../package/built.js';

const SMOKE_RUN = fileURLToPath(new URL('../fixtures/smoke-run.ts', import.meta.url));

/**
 * A partner's app beside the built package: a folder whose node_modules/mobile-partner-sdk is
 * this repository (dist/ built when stale), so a bundler resolves the package by its exports
 * and conditions as it would an installed copy. Its entry, `worker.mjs`, is a Worker (a
 * `fetch` handler) that runs fixtures/smoke-run.ts with what it imported from the package and
 * answers the report as JSON; it is given `{ baseUrl, key, secret }` as the request's body.
 */
export interface PartnerApp {
  dir: string;
  entry: string;
  remove(): void;
}

export function createPartnerApp(): PartnerApp {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'mps-partner-app-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'mobile-partner-sdk'), 'dir');
  const entry = join(dir, 'worker.mjs');
  writeFileSync(
    entry,
    `import * as client from 'mobile-partner-sdk';
import * as webhooks from 'mobile-partner-sdk/webhooks';
import { smokeRun } from ${JSON.stringify(SMOKE_RUN)};

export default {
  async fetch(request) {
    return Response.json(await smokeRun({ ...client, ...webhooks }, await request.json()));
  },
};
`,
  );
  return { dir, entry, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
