/**
 * An asynchronous operation started in one process and finished in another, from the handle's
 * resume token alone: the second process has no handle, no id of its own, nothing but the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type CompiledScripts, compileScripts } from '../helpers/bundle.js';
import { runChild } from './run-child.js';

const CHILD = 'test/process/resume.child.ts';
let sandbox: SandboxHandle;
let compiled: CompiledScripts;

beforeAll(async () => {
  [sandbox, compiled] = await Promise.all([startSandbox({ port: 0, transactionDelayMs: 300 }), compileScripts([CHILD])]);
});

afterAll(async () => {
  compiled.remove();
  await sandbox.close();
});

describe('a resume token across processes', () => {
  it('lets a second process finish the provisioning the first one started', async () => {
    const env = {
      RESUME_BASE_URL: sandbox.url,
      RESUME_KEY: sandbox.key,
      RESUME_SECRET: sandbox.secret,
      RESUME_PLAN_ID: sandbox.fixtures.pricedPlanId,
    };
    const started = await runChild(compiled.path(CHILD), { ...env, RESUME_STEP: 'start' }, 30_000);
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const token = started.stdout.trim();
    expect(token).toMatch(/^v1\.[\w-]+$/);

    const finished = await runChild(compiled.path(CHILD), { ...env, RESUME_STEP: 'finish', RESUME_TOKEN: token }, 30_000);
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const done = JSON.parse(finished.stdout.trim()) as { transactionId: string; status: string; iccid: string };
    expect(done.status).toBe('COMPLETED');
    expect(done.iccid).toMatch(/^89\d+$/);
    // The sandbox saw one provisioning, polled by the second process only.
    const log = sandbox.requests();
    expect(log.filter((entry) => entry.method === 'POST' && entry.path === '/api/v1.1/esim')).toHaveLength(1);
    expect(log.filter((entry) => entry.path === `/api/v3/transactions/${done.transactionId}`).length).toBeGreaterThan(0);
  });
});
