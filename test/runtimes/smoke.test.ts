/**
 * The client under Bun and Deno, with no option set: outside Node it sends with the platform's
 * fetch (Bun answers `import 'undici'` with a partial module of its own). The partner smoke run
 * (fixtures/smoke.ts) goes against a sandbox started here under Node, over loopback; and the
 * sandbox itself runs under Bun for a Node client. Both runtimes come from their npm packages
 * (devDependencies), which ship the binaries. Workers and the Edge Runtime run the same smoke
 * run from the built package: bundled/. All of test/runtimes/ is in the integration tier
 * (`npm run test:integration`; `npm run test:runtimes` runs it alone).
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { expectCompleteSmokeRun } from './expect-report.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const SMOKE = fileURLToPath(new URL('./fixtures/smoke.ts', import.meta.url));
const SANDBOX = fileURLToPath(new URL('./fixtures/sandbox.ts', import.meta.url));

const RUNTIMES: Record<string, { command: string; args: string[] }> = {
  // Node itself, on undici: the baseline every other runtime's report is held to.
  Node: { command: process.execPath, args: ['--import', 'tsx', SMOKE] },
  Bun: { command: require.resolve('bun/bin/bun.exe'), args: [SMOKE] },
  // The source imports its own modules as `.js`, as TypeScript's NodeNext wants: sloppy imports map them to `.ts`.
  Deno: {
    command: process.execPath,
    args: [require.resolve('deno/bin.cjs'), 'run', '--allow-net', '--allow-env', '--allow-read', '--unstable-sloppy-imports', SMOKE],
  },
};

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, transactionDelayMs: 20 });
});

afterAll(async () => {
  await sandbox.close();
});

describe.each(Object.keys(RUNTIMES))('under %s', (name) => {
  it('runs the partner smoke run with no option set, and close() resolves', async () => {
    const runtime = RUNTIMES[name] as { command: string; args: string[] };
    const args = [...runtime.args, sandbox.url, sandbox.key, sandbox.secret, ...(name === 'Node' ? ['node'] : [])];
    const { stdout } = await run(runtime.command, args, { timeout: 60_000 });
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expectCompleteSmokeRun(report, name === 'Node' ? 'node' : 'other');
  });
});

describe('the sandbox under Bun', () => {
  it('serves a Node client the same flows, and closes and exits when told', async () => {
    const child = spawn(require.resolve('bun/bin/bun.exe'), [SANDBOX], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const started = JSON.parse(line) as { url: string; key: string; secret: string };
      expect(new URL(started.url).hostname).toBe('127.0.0.1');
      const client = new PartnerClient({ baseUrl: started.url, key: started.key, secret: started.secret });
      let walked = 0;
      for await (const sim of client.sims.list({ pageSize: 50 })) if (sim.iccid) walked++;
      const first = await client.sims.list({ pageSize: 1 });
      expect(walked).toBe(first.meta?.total);
      const provisioning = await client.esim.provision({ planId: 'Business 5GB' });
      await expect(provisioning.wait({ timeoutMs: 30_000, pollIntervalMs: 100 })).resolves.toMatchObject({ status: 'COMPLETED' });
      await client.close();
      const exited = once(child, 'exit');
      child.stdin.end();
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      child.kill();
    }
  });
});
