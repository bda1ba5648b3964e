/**
 * The built `partner-sandbox` bin refuses a bad command line with one line on stderr naming the
 * flag and exit status 2, no stack trace and nothing started; a failure to start (a port in use)
 * is one line and exit status 1. The whole table of bad flags runs in process
 * (test/sandbox/cli-args.test.ts); these are a handful of its rows through the real bin.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerOf } from '../helpers.js';
import { buildBin, root } from './built-bin.js';

let bin: string;
let remove: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ bin, remove } = await buildBin());
}, 120_000);

afterAll(async () => {
  await remove?.();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, timeout: 15_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

function expectOneLine(result: Run, status: number, names: string): void {
  expect(result.code, result.stderr).toBe(status);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^partner-sandbox: /);
  expect(lines[0]).toContain(names);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe('partner-sandbox usage errors', () => {
  it.each([
    [['--port', ''], '--port must be an integer from 0 to 65535, in decimal digits, no sign or leading zero (got "")'],
    [['--port', ' '], '--port must be an integer from 0 to 65535, in decimal digits, no sign or leading zero (got " ")'],
    [['--port', '+80'], '--port must be an integer from 0 to 65535, in decimal digits, no sign or leading zero (got "+80")'],
    [['--port=abc'], '--port must be an integer'],
    [['--seed='], '--seed must be an integer'],
    [['--port'], '--port needs a value'],
    [['--sims', '5'], '--sims must be an integer from 20 to 100000 (got "5")'],
    [['--port', '4010', '--port', '4011'], '--port is given more than once'],
    [['--nope'], 'unknown flag --nope'],
    [['--host', '0.0.0.0'], '--expose'],
  ])('%j exits 2 with one line naming the flag', async (args, names) => {
    expectOneLine(await run(args), 2, names);
  });

  it('cuts an unknown flag of 100 KB of blanks short, and reads it in linear time', async () => {
    // Linux passes at most 128 KiB in one argument; the run's bound is 15 s.
    const result = await run([`--a${' '.repeat(100_000)}b`]);
    expectOneLine(result, 2, 'unknown flag --a');
    expect(result.stderr.length).toBeLessThan(200);
  });

  it('a port in use exits 1 with one line', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = holder.address() as { port: number };
      expectOneLine(await run(['--port', String(port)]), 1, 'EADDRINUSE');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('--help exits 0 and lists --expose', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--expose');
  });

  it('--expose with a host off the loopback literals starts, and warns on stderr and in the banner with the URL it answers on', async () => {
    // `127.1` is a name to the bind rule, which the resolver reads as 127.0.0.1: nothing listens
    // beyond loopback.
    const child = spawn(process.execPath, [bin, '--port', '0', '--host', '127.1', '--expose'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const out = await bannerOf(child);
      const port = /listening on http:\/\/127\.1:(\d+)/.exec(out)?.[1];
      expect(port, out).toBeDefined();
      expect(out).toContain('WARNING: --expose');
      expect(stderr).toContain('SandboxExposedWarning');
      expect(stderr).toContain(`http://127.0.0.1:${port}`);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
