import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { ensureBuilt, root } from '../../package/built.js';

const SMOKE_RUN = fileURLToPath(new URL('../fixtures/smoke-run.ts', import.meta.url));

/**
 * A partner's app beside the built package: a folder whose node_modules/mobile-partner-sdk is
 * this repository (dist/ built when stale), so a bundler resolves the package by its exports
 * and conditions as it would an installed copy. Its entry, `worker.mjs`, is a Worker (a
 * `fetch` handler) that runs fixtures/smoke-run.ts with what it imported from the package and
 * answers the report as JSON; it is given `{ baseUrl, key, secret }` as the request's body, and
 * with `step` (and `token`) one step of an operation resumed across requests instead.
 */
export interface PartnerApp {
  dir: string;
  entry: string;
  remove(): void;
}

function createPartnerApp(): PartnerApp {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'mps-partner-app-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'mobile-partner-sdk'), 'dir');
  const entry = join(dir, 'worker.mjs');
  writeFileSync(
    entry,
    `import * as client from 'mobile-partner-sdk';
import * as webhooks from 'mobile-partner-sdk/webhooks';
import { resumeStep, smokeRun } from ${JSON.stringify(SMOKE_RUN)};

export default {
  async fetch(request) {
    const input = await request.json();
    const sdk = { ...client, ...webhooks };
    return Response.json(input.step ? await resumeStep(sdk, input) : await smokeRun(sdk, input));
  },
};
`,
  );
  return { dir, entry, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A partner app and a sandbox for every test of the calling file: made before them, removed and closed after. */
export function usePartnerApp(): { readonly app: PartnerApp; readonly sandbox: SandboxHandle; readonly target: string } {
  let app: PartnerApp | undefined;
  let sandbox: SandboxHandle | undefined;
  beforeAll(async () => {
    app = createPartnerApp();
    sandbox = await startSandbox({ port: 0, transactionDelayMs: 20 });
  }, 270_000);
  afterAll(async () => {
    await sandbox?.close();
    app?.remove();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('usePartnerApp: ready only while the tests of the file run');
    return value;
  };
  return {
    get app() {
      return ready(app);
    },
    get sandbox() {
      return ready(sandbox);
    },
    /** The smoke run's target, as the request body the app reads. */
    get target() {
      const running = ready(sandbox);
      return JSON.stringify({ baseUrl: running.url, key: running.key, secret: running.secret });
    },
  };
}
