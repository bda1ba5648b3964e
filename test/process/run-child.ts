import { spawn } from 'node:child_process';

/** How a child process of plain `node` ended: its exit code, and what it wrote. */
export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a compiled script with plain `node` and waits for it to exit by itself, killing it after
 * `killAfterMs` (its exit code is then null): a test of "the process exits on its own" must not
 * wait for the very wait it checks is gone.
 */
export async function runChild(script: string, env: Record<string, string>, killAfterMs: number): Promise<ChildRun> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}
