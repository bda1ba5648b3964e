import { execFile, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { compileScripts } from '../helpers/bundle.js';
import { buildBin, root } from './cli/built-bin.js';
import { bannerOf } from './helpers.js';

const removals: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(removals.map((remove) => remove()));
});

describe('partner-sandbox command', () => {
  it('is an executable with a node shebang that prints the URL and both credentials, serves, and stops on Ctrl-C (SIGINT)', async () => {
    const { bin, remove } = await buildBin();
    removals.push(remove);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    // Spawned as a file, not through node: only the shebang and the executable bit make it run.
    const child = spawn(bin, ['--port', '0', '--seed', '42'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const out = await bannerOf(child, 15_000);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      const expected = createSandbox({ seed: 42 });
      await expected.close();
      for (const credential of Object.values(expected.credentials)) expect(out).toContain(credential);
      const res = await fetch(`${url}/api/v1.1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: expected.credentials.key, secret: expected.credentials.secret }),
      });
      expect(res.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});

describe('close()', () => {
  it('leaves no timer or socket of its own behind (active resources of a child process)', async () => {
    const compiled = await compileScripts(['test/sandbox/probes/close-probe.ts']);
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [compiled.path('test/sandbox/probes/close-probe.ts')], { cwd: root, timeout: 20_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      );
    }).finally(() => compiled.remove());
    const report = JSON.parse(stdout) as Record<'before' | 'during' | 'afterClose' | 'after', string[]> & {
      receiverSockets: number;
      pendingTimers: number;
    };
    const count = (list: string[], name: string) => list.filter((r) => r === name).length;
    // The work was really running: the sandbox's server, sockets and real-time timers.
    expect(count(report.during, 'TCPServerWrap')).toBe(4);
    expect(count(report.during, 'Timeout')).toBeGreaterThan(0);
    // Right after close(): only the probe's three receivers and the sockets they hold remain.
    expect(count(report.afterClose, 'Timeout')).toBe(0);
    expect(count(report.afterClose, 'TCPServerWrap')).toBe(3);
    expect(count(report.afterClose, 'TCPSocketWrap')).toBe(report.receiverSockets);
    expect(report.pendingTimers).toBe(0);
    // Nothing of the sandbox's is left: every resource still active was there before it started
    // (Node 22 and later may finish a connect of the loader's own in the meantime).
    for (const name of new Set(report.after)) expect(count(report.after, name)).toBeLessThanOrEqual(count(report.before, name));
    expect(report.after.length).toBeLessThanOrEqual(report.before.length);
  }, 30_000);
});
