/**
 * A partner's app for the Worker figures: a folder whose node_modules/mobile-partner-sdk is the
 * build under test, with its dependencies beside it as an installed app would have them.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIST_DIR, ROOT } from './client.js';

export function partnerApp(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const pkg = path.join(dir, 'node_modules', 'mobile-partner-sdk');
  mkdirSync(pkg, { recursive: true });
  // The package.json of the build under test (a build from elsewhere keeps its own exports).
  const manifest = path.join(DIST_DIR, '..', 'package.json');
  writeFileSync(path.join(pkg, 'package.json'), readFileSync(existsSync(manifest) ? manifest : path.join(ROOT, 'package.json')));
  symlinkSync(DIST_DIR, path.join(pkg, 'dist'), 'dir');
  const beside = path.join(DIST_DIR, '..', 'node_modules');
  symlinkSync(existsSync(beside) ? beside : path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
  return dir;
}
