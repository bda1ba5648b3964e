/**
 * Every script in examples/ is a story a partner copies: each one runs to completion against the
 * sandbox it starts for itself, exits on its own (nothing left holding the event loop), and says
 * nothing on stderr.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompiledScripts, compileScripts } from '../helpers/bundle.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scripts = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.ts'));

/** Longest an example may run before it counts as hung. */
const LIMIT_MS = 60_000;

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Each example compiled as tsx would run it, so that each child starts with plain node. */
let compiled: CompiledScripts | undefined;

beforeAll(async () => {
  compiled = await compileScripts(scripts.map((name) => join('examples', name)));
});

afterAll(() => {
  compiled?.remove();
});

function runExample(name: string): Promise<Outcome> {
  // Without PARTNER_API_* an example starts its own sandbox, whatever the shell running the suite has set.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PARTNER_API_')));
  const script = (compiled as CompiledScripts).path(join('examples', name));
  const child = spawn(process.execPath, [script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('examples', () => {
  it('finds the examples', () => {
    expect(scripts).toContain('demo.ts');
    expect(scripts.length).toBeGreaterThanOrEqual(5);
  });

  it.each(scripts)(
    '%s runs to completion against a fresh sandbox and exits on its own',
    async (name) => {
      const outcome = await runExample(name);
      expect(outcome.signal, `${name} was killed after ${LIMIT_MS} ms: it hung\n${outcome.stdout}`).toBeNull();
      expect(outcome.stderr).toBe('');
      expect(outcome.code, outcome.stdout).toBe(0);
      expect(outcome.stdout.trim().length).toBeGreaterThan(0);
    },
    LIMIT_MS + 10_000,
  );
});
