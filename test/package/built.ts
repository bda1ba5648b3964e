import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');

function newestInputMs(): number {
  const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).map((name) => statSync(join(root, 'src', name)).mtimeMs);
  return Math.max(...sources, statSync(join(root, 'tsup.config.ts')).mtimeMs, statSync(join(root, 'package.json')).mtimeMs);
}

/**
 * Builds dist/ with the package's own build when it is missing or older than src/, tsup.config.ts
 * or package.json, so the package tests (integration tier) work on a fresh clone
 * (`npm install && npm run test:integration`, no install script). A directory lock keeps two test files from building into dist/ at once.
 */
export function ensureBuilt(): void {
  const lock = join(root, 'node_modules', '.cache', 'mps-dist-build.lock');
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than any build is left over from a killed run.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 240_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${lock} is held by another build`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    const built = join(root, 'dist/sandbox/cli.js');
    if (!existsSync(built) || statSync(built).mtimeMs < newestInputMs()) {
      execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'ignore', timeout: 240_000 });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
