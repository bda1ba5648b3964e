/**
 * The guides' tables about the package and its repository, held to the files that decide them:
 * package.json (dependencies, exports, scripts, engines), the entries' exports, examples/ and the
 * test tiers of test/tiers.ts. Each table is found by its header row, on whichever page holds it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { integrationFiles, systemComponents } from '../tiers.js';
import fastConfig from '../vitest.config.js';
import { codeSpans, findTable, root } from './markdown.js';

interface PackageJson {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
  engines: { node: string };
  exports: Record<string, unknown>;
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;

/** The script `npm test` or `npm run <name>` runs. */
function script(command: string): string {
  const name = /^npm (?:test|run ([\w:-]+))$/.exec(command);
  if (!name) throw new Error(`not an npm script command: ${command}`);
  const body = pkg.scripts[name[1] ?? 'test'];
  if (body === undefined) throw new Error(`package.json has no script for ${command}`);
  return body;
}

/** The files an export condition of a subpath resolves to, every condition included. */
function exportTargets(subpath: string): string[] {
  const walk = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : typeof value === 'object' && value !== null ? Object.values(value).flatMap(walk) : [];
  return walk(pkg.exports[subpath]);
}

describe("the README's table of runtime dependencies", () => {
  const { rows } = findTable(['Package', 'Why it is there']);

  it('names each dependency of package.json once, and no other package', () => {
    const named = rows.map(([packages = '']) => codeSpans(packages)[0]);
    expect(named.sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('names, in parentheses, only packages the dependency itself depends on', () => {
    for (const [packages = ''] of rows) {
      const [dependency, ...own] = codeSpans(packages);
      const manifest = JSON.parse(readFileSync(join(root, 'node_modules', dependency ?? '', 'package.json'), 'utf8')) as PackageJson;
      for (const name of own) expect([dependency, Object.keys(manifest.dependencies ?? {})]).toEqual([dependency, expect.arrayContaining([name])]);
    }
  });
});

describe("the README's table of example scripts", () => {
  const { rows } = findTable(['Script', 'Story']);
  const files = rows.map(([command = '']) => /^`npx tsx (examples\/[\w-]+\.ts)`$/.exec(command)?.[1]);

  it('runs each with `npx tsx` from a file of examples/', () => {
    for (const [index, file] of files.entries()) {
      expect([rows[index]?.[0], file !== undefined && existsSync(join(root, file))]).toEqual([rows[index]?.[0], true]);
    }
  });

  it('lists every script of examples/ but those an npm script runs', () => {
    const byScripts = Object.values(pkg.scripts).join('\n');
    const examples = readdirSync(join(root, 'examples'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `examples/${name}`)
      .filter((file) => !byScripts.includes(file));
    expect([...files].sort()).toEqual(examples.sort());
  });
});

describe("the reference index's table of imports", () => {
  const { rows } = findTable(['Import', 'What it holds']);
  const subpathOf = (cell: string): string => `.${(codeSpans(cell)[0] ?? '').replace(/^mobile-partner-sdk/, '')}`;

  it('has one row per entry point package.json exports', () => {
    const subpaths = Object.keys(pkg.exports).filter((subpath) => subpath !== './package.json');
    expect(rows.map(([name = '']) => subpathOf(name)).sort()).toEqual(subpaths.sort());
  });

  it.each(rows.map(([name = '', holds = '']) => [codeSpans(name)[0], holds]))('%s exports what its row names', async (_name, holds) => {
    const subpath = subpathOf(`\`${_name}\``);
    const source = exportTargets(subpath)
      .map((target) => target.replace(/^\.\/dist\//, 'src/').replace(/\.(?:d\.)?c?[jt]s$/, '.ts'))
      .find((file) => !file.includes('.web') && !file.endsWith('/web.ts'));
    const entry = (await import(join(root, source ?? ''))) as Record<string, unknown>;
    // A call (`startSandbox()`) or a capitalised name that is not a global of the platform (`Request` is).
    const named = codeSpans(holds).filter((span) => span.endsWith('()') || (/^[A-Z]\w+$/.test(span) && !(span in globalThis)));
    for (const span of named) {
      const name = span.replace(/\(\)$/, '');
      expect([name, typeof entry[name]]).toEqual([name, 'function']);
    }
  });
});

describe("the development guide's table of test tiers", () => {
  const table = findTable(['Tier', 'Command', 'Needs', 'What is in it']);
  const row = (tier: string): string[] => {
    const found = table.rows.find(([name]) => name === tier);
    if (!found) throw new Error(`${table.page} has no row for the ${tier} tier`);
    return found;
  };

  it('has the fast, integration and types tiers', () => {
    expect(table.rows.map(([tier]) => tier)).toEqual(['fast', 'integration', 'types']);
  });

  it('runs each tier with the npm script and the config its row names', () => {
    for (const [tier, command = ''] of table.rows) {
      const [npm, ...configs] = codeSpans(command);
      const body = script(npm ?? '');
      for (const config of configs) expect([tier, body]).toEqual([tier, expect.stringContaining(`--config ${config}`)]);
    }
  });

  it('needs, for the integration tier, the system components it checks and the script that installs them', () => {
    const [command, ...programs] = codeSpans(row('integration')[2] ?? '').reverse();
    expect(programs.sort()).toEqual(systemComponents.map((component) => component.command).sort());
    expect(script(command ?? '')).toContain('setup-system');
  });

  it('needs nothing but Node.js and npm install for the fast tier: every file driving a system component is integration', () => {
    expect(row('fast')[2]).toBe('Node.js and `npm install`');
    for (const component of systemComponents) {
      for (const path of component.neededBy) expect(integrationFiles.some((pattern) => pattern.startsWith(path))).toBe(true);
    }
  });

  it('puts in the integration tier the folders its row names', () => {
    const folders = (row('integration')[3] ?? '').match(/test\/[\w-]+\//g) ?? [];
    expect(folders.length).toBeGreaterThan(0);
    for (const folder of folders) expect([folder, integrationFiles.some((pattern) => pattern.startsWith(folder))]).toEqual([folder, true]);
  });

  it('runs tsc and then the type tests in the types tier', () => {
    const [, , needs = '', what = ''] = row('types');
    expect(needs).toBe('Node.js and `npm install`');
    const [tsc, typeTests] = codeSpans(what);
    expect(script(codeSpans(row('types')[1] ?? '')[0] ?? '')).toMatch(new RegExp(`^${tsc} && .*--typecheck\\.only`));
    expect(fastConfig.test?.typecheck?.include).toEqual([`test/**/${typeTests}`]);
  });
});

describe("the runtimes guide's table", () => {
  const { rows } = findTable(['Runtime', 'Client wire', 'Tested by']);

  it('names Node majors the package supports, on undici', () => {
    const node = rows.find(([runtime]) => runtime?.startsWith('Node '));
    const majors = (node?.[0] ?? '').match(/\d+/g)?.map(Number) ?? [];
    const least = Number(/\d+/.exec(pkg.engines.node)?.[0]);
    expect(majors.length).toBeGreaterThan(0);
    expect(majors.every((major) => major >= least)).toBe(true);
    expect(node?.[1]).toBe('undici');
    // What util.inspect shows of a client: under Node, with no `fetch` given, it sends with undici.
    const client = new PartnerClient({ baseUrl: 'http://127.0.0.1:9', key: 'k', secret: 's' });
    expect(JSON.parse(inspect(client).replace(/^PartnerClient /, ''))).toMatchObject({ wire: 'undici' });
  });

  it('sends with the platform fetch elsewhere, from the web build where its row names it', () => {
    const webTargets = ['workerd', 'edge-light'].map((condition) => (pkg.exports['.'] as Record<string, { default: string }>)[condition]?.default);
    for (const [runtime, wire = ''] of rows.filter(([name]) => !name?.startsWith('Node '))) {
      expect([runtime, wire.startsWith('platform `fetch`')]).toEqual([runtime, true]);
      for (const file of codeSpans(wire).slice(1)) expect(webTargets).toContain(`./${file}`);
    }
  });

  it('runs each runtime with a script the package has', () => {
    for (const [runtime, , testedBy = ''] of rows) {
      const commands = codeSpans(testedBy).filter((span) => span.startsWith('npm '));
      expect([runtime, commands.length]).not.toEqual([runtime, 0]);
      for (const command of commands) expect(script(command)).toBeTruthy();
    }
    expect(script('npm run test:runtimes')).toContain('test/runtimes');
  });
});
