import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('../../../', import.meta.url));

interface TsupEntry {
  entry: Record<string, string>;
  [option: string]: unknown;
}

/**
 * Builds the bin and the sandbox entry with the package's own tsup config (no declarations) into a
 * private folder, so a test checks the `partner-sandbox` bin that `npm pack` ships, next to the
 * sandbox entry it imports, without touching the shared dist/. The folder sits under node_modules
 * so the bundle resolves its dependencies like the installed bin. Returns the bin's path and a
 * function that deletes the folder.
 */
export async function buildBin(): Promise<{ bin: string; remove: () => Promise<void> }> {
  const { build } = await import('tsup');
  const configs = (await import(pathToFileURL(join(root, 'tsup.config.ts')).href)).default as TsupEntry[];
  if (!configs.some((config) => 'sandbox/cli' in config.entry)) throw new Error('tsup.config.ts has no sandbox/cli entry');
  const cache = join(root, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const outDir = await mkdtemp(join(cache, 'partner-sandbox-bin-'));
  const remove = (): Promise<void> => rm(outDir, { recursive: true, force: true });
  try {
    // Only what the bin runs: itself and the sandbox entry it imports (not the client's builds).
    const needed = configs.filter((config) => 'sandbox/cli' in config.entry || 'sandbox/index' in config.entry);
    for (const config of needed) await build({ ...config, outDir, dts: false, clean: false, sourcemap: false, silent: true, config: false });
  } catch (error) {
    await remove();
    throw error;
  }
  return { bin: join(outDir, 'sandbox', 'cli.js'), remove };
}
