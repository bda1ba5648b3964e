import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type SystemComponent, systemComponents } from '../tiers.js';

function onPath(command: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** The file filters given on Vitest's command line (`vitest run … test/redis`): none runs the whole tier. */
function fileFilters(): string[] {
  const args = process.argv.slice(2);
  const filters: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--config' || arg === '-c' || arg === '--project') i += 1;
    else if (!arg.startsWith('-') && arg !== 'run') filters.push(arg.replace(/^\.\//, ''));
  }
  return filters;
}

function needed(component: SystemComponent, filters: readonly string[]): boolean {
  if (filters.length === 0) return true;
  return filters.some((filter) => component.neededBy.some((prefix) => filter.includes(prefix) || prefix.includes(filter)));
}

/**
 * The integration tier's global setup: every system component the run drives is there, or the
 * run fails at once, naming each missing one with the command that installs it. Nothing skips.
 */
export default function checkSystemComponents(): void {
  const filters = fileFilters();
  const missing = systemComponents.filter((component) => {
    if (!needed(component, filters)) return false;
    if (component.name === 'Chromium' && process.env.CHROMIUM_PATH) return false;
    return !onPath(component.command);
  });
  if (missing.length === 0) return;
  const install = `apt-get install -y ${[...new Set(missing.map(({ debianPackage }) => debianPackage))].join(' ')}`;
  throw new Error(
    [
      'The integration tier drives real system components, and these are missing:',
      ...missing.map(({ name, debianPackage }) => `  - ${name} (Debian/Ubuntu package ${debianPackage})`),
      `Install them with \`npm run setup:system\`, or as root: ${install}`,
      ...(missing.some(({ name }) => name === 'Chromium') ? ['(or point CHROMIUM_PATH at a Chromium binary)'] : []),
    ].join('\n'),
  );
}
