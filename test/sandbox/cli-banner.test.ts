/**
 * Every URL the `partner-sandbox` banner prints answers: a wildcard or `localhost` bind is shown
 * as the loopback URLs that really reach the server, never as http://0.0.0.0 or a name that
 * may resolve to the other address family.
 */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { type CompiledScripts, compileScripts } from '../helpers/bundle.js';
import { bannerOf } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI's source, compiled as tsx would run it. */
let compiled: CompiledScripts | undefined;
let cli: string;

beforeAll(async () => {
  compiled = await compileScripts(['src/sandbox/cli.ts']);
  cli = compiled.path('src/sandbox/cli.ts');
});

afterAll(() => {
  compiled?.remove();
});

async function banner(args: string[], check: (out: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [cli, '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const out = await bannerOf(child);
    await check(out);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** Every http:// URL printed, a trailing `*` of a route pattern left out. */
function bannerUrls(out: string): string[] {
  return [...out.matchAll(/http:\/\/[^\s)]+/g)].map((match) => match[0].replace(/\*$/, ''));
}

async function expectAllAnswer(out: string): Promise<void> {
  const urls = bannerUrls(out);
  expect(urls.length).toBeGreaterThanOrEqual(3);
  for (const url of urls) {
    expect(url).not.toMatch(/\/\/(0\.0\.0\.0|\[::\]|localhost)[:/]/);
    const response = await fetch(url);
    await response.arrayBuffer();
    expect(response.status, url).toBeLessThan(500);
  }
  const listening = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  const time = await fetch(`${listening}/_sandbox/time`);
  expect(time.status).toBe(200);
  await time.arrayBuffer();
}

describe('partner-sandbox banner', () => {
  // Tests listen on loopback only, so a wildcard bind is not started here; it takes the same
  // path as `localhost` (loopback candidates, each probed before it is printed).
  it.each([[[]], [['--host', 'localhost']], [['--host', '127.0.0.1']]])(
    'prints only URLs that answer (%j)',
    async (args) => {
      await banner(args, expectAllAnswer);
    },
    30_000,
  );

  it('prints the three environment lines a shell takes, and a client built with no options works from them', async () => {
    await banner([], async (out) => {
      const exports = out.split('\n').filter((line) => line.startsWith('  export '));
      expect(exports.map((line) => line.trim().split('=')[0])).toEqual([
        'export PARTNER_API_BASE_URL',
        'export PARTNER_API_KEY',
        'export PARTNER_API_SECRET',
      ]);
      // Run by a real shell, as pasted.
      const printed = execFileSync('sh', ['-c', `${exports.join('\n')}\nenv`], { encoding: 'utf8', env: {} });
      const env = Object.fromEntries(printed.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
      const saved = { ...process.env };
      Object.assign(process.env, {
        PARTNER_API_BASE_URL: env['PARTNER_API_BASE_URL'],
        PARTNER_API_KEY: env['PARTNER_API_KEY'],
        PARTNER_API_SECRET: env['PARTNER_API_SECRET'],
      });
      const client = new PartnerClient();
      try {
        expect((await client.sims.list({ pageSize: 1 })).data).toHaveLength(1);
      } finally {
        await client.close();
        process.env = saved;
      }
    });
  }, 30_000);
});
