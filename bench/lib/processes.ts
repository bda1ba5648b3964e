import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './client.js';
import type { FigureConfig } from './figure.js';
import type { Row } from './report.js';

/** Node flags of every bench child: TypeScript through tsx, and gc() for heap figures. */
const NODE_FLAGS = ['--expose-gc', '--import', 'tsx'];

export interface RunningServer<T> {
  info: T;
  stop(): Promise<void>;
}

/** Spawns bench/server.ts and waits for the JSON line it prints once listening. */
export function startServer<T>(args: string[], timeoutMs = 60_000): Promise<RunningServer<T>> {
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(ROOT, 'bench/server.ts'), ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bench server did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve({ info: JSON.parse(line) as T, stop: () => stopChild(child) });
      } catch {
        child.kill('SIGKILL');
        reject(new Error(`bench server printed ${line.slice(0, 200)}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench server exited with ${code}: ${lastLines(stderr)}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function lastLines(text: string, count = 6): string {
  return text.trim().split('\n').slice(-count).join(' / ');
}

/** Runs one figure in a fresh process and returns its rows. */
export function runFigure(name: string, config: FigureConfig, timeoutMs: number): Promise<Row[]> {
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(ROOT, 'bench/lib/child-entry.ts'), name, JSON.stringify(config)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
      if (code === 0 && line) resolve(JSON.parse(line.slice('RESULT '.length)) as Row[]);
      else reject(new Error(`exited with ${signal ?? code}: ${lastLines(stderr || stdout)}`));
    });
  });
}
