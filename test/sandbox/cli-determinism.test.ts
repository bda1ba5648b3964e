import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';

const cliPath = fileURLToPath(new URL('../../src/sandbox/cli.ts', import.meta.url));
const tsxBin = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

describe('partner-sandbox command', () => {
  it('prints the URL and both credentials, serves, and exits on SIGTERM', async () => {
    const child = spawn(tsxBin, [cliPath, '--port', '0', '--seed', '42'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('Ctrl-C')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', () => reject(new Error(`exited early: ${out}`)));
      });
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      const expected = createSandbox({ seed: 42 });
      await expected.close();
      expect(out).toContain(expected.credentials.key);
      expect(out).toContain(expected.credentials.secret);
      expect(out).toContain(expected.credentials.standardKey);
      expect(out).toContain(expected.credentials.standardSecret);
      const res = await fetch(`${url}/api/v1.1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: expected.credentials.key, secret: expected.credentials.secret }),
      });
      expect(res.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('determinism', () => {
  it('builds the same data and credentials from the same seed, and different data from another', async () => {
    const a = createSandbox({ seed: 1234, now: 0 });
    const b = createSandbox({ seed: 1234, now: 1_000_000 });
    const c = createSandbox({ seed: 4321 });
    const snapshot = (s: typeof a) =>
      JSON.stringify({
        sims: [...s.ctx.state.sims.values()],
        subscriptions: s.ctx.state.subscriptions,
        plans: [...s.ctx.state.plans.values()],
        team: [...s.ctx.state.teamMembers.values()],
        users: [...s.ctx.state.users.values()],
        portIns: s.ctx.state.portIns,
        credentials: s.credentials,
      });
    expect(snapshot(a)).toBe(snapshot(b));
    expect(snapshot(a)).not.toBe(snapshot(c));
    const sims = [...a.ctx.state.sims.values()];
    expect(sims).toHaveLength(300);
    expect(new Set(sims.map((s) => s.iccid)).size).toBe(300);
    expect(new Set(sims.map((s) => s.operator)).size).toBeGreaterThanOrEqual(3);
    expect(sims.some((s) => s.isEsim) && sims.some((s) => !s.isEsim)).toBe(true);
    expect(new Set(a.ctx.state.subscriptions.map((s) => s.status))).toEqual(new Set(['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED', 'CANCEL_SCHEDULED']));
    const small = createSandbox({ simCount: 40 });
    expect(small.ctx.state.sims.size).toBe(40);
    await Promise.all([a.close(), b.close(), c.close(), small.close()]);
  });
});
