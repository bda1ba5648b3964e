import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './built.js';
let consumer: string;

/** Runs a snippet in a fresh Node process inside a consumer project that depends on the package. */
function run(code: string, type: 'commonjs' | 'module'): string {
  const file = join(consumer, type === 'commonjs' ? 'probe.cjs' : 'probe.mjs');
  execFileSync(process.execPath, ['-e', `require('node:fs').writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(code)})`]);
  return execFileSync(process.execPath, [file], { cwd: consumer, encoding: 'utf8', timeout: 15_000 }).trim();
}

beforeAll(() => {
  ensureBuilt();
  consumer = mkdtempSync(join(tmpdir(), 'mps-consumer-'));
  mkdirSync(join(consumer, 'node_modules'));
  symlinkSync(root, join(consumer, 'node_modules', 'mobile-partner-sdk'), 'dir');
}, 270_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

/** The text of a built file and of every relative chunk it imports, transitively. */
function loadGraph(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  let all = text;
  for (const match of text.matchAll(/(?:from\s*|import\(|require\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    all += loadGraph(resolve(file, '..', match[1] as string), seen);
  }
  return all;
}

describe('published entry points', () => {
  it('can be required from CommonJS', () => {
    const out = run(
      `const sdk = require('mobile-partner-sdk');
       const client = new sdk.PartnerClient({ baseUrl: 'http://127.0.0.1:9', key: 'k', secret: 's' });
       console.log(typeof sdk.PartnerClient, typeof client.sims.list, new sdk.NotFoundError({ status: 404, code: 'SIM_NOT_FOUND', message: 'x' }) instanceof sdk.ApiError);`,
      'commonjs',
    );
    expect(out).toBe('function function true');
  });

  it('can be imported as ESM', () => {
    const out = run(
      `import { PartnerClient, RateLimitError } from 'mobile-partner-sdk';
       import { verifySignature } from 'mobile-partner-sdk/webhooks';
       import { startSandbox } from 'mobile-partner-sdk/sandbox';
       console.log(typeof PartnerClient, typeof RateLimitError, typeof verifySignature, typeof startSandbox);`,
      'module',
    );
    expect(out).toBe('function function function function');
  });

  it('requires the webhooks and sandbox entries from CommonJS', () => {
    const out = run(
      `const w = require('mobile-partner-sdk/webhooks'); const s = require('mobile-partner-sdk/sandbox');
       console.log(typeof w.verifySignature, typeof s.startSandbox);`,
      'commonjs',
    );
    expect(out).toBe('function function');
  });

  it('gives both module systems one error class across entry points, so instanceof holds', () => {
    const cjs = run(
      `const sdk = require('mobile-partner-sdk'); const hooks = require('mobile-partner-sdk/webhooks');
       console.log(sdk.WebhookSignatureError === hooks.WebhookSignatureError, sdk.verifySignature === hooks.verifySignature);`,
      'commonjs',
    );
    const esm = run(
      `import * as sdk from 'mobile-partner-sdk'; import * as hooks from 'mobile-partner-sdk/webhooks';
       console.log(sdk.WebhookSignatureError === hooks.WebhookSignatureError, sdk.verifySignature === hooks.verifySignature);`,
      'module',
    );
    expect(cjs).toBe('true true');
    expect(esm).toBe('true true');
  });

  it("loads the fleet entry in both module systems, with the client entry's error classes", () => {
    const probe = (load: string): string =>
      `${load}
       let error; try { new redis.RedisRateLimiter({ redis: {} }); } catch (caught) { error = caught; }
       console.log(typeof redis.RedisRateLimiter, typeof redis.RedisDedupeStore, error instanceof sdk.ConfigurationError);`;
    expect(run(probe(`const sdk = require('mobile-partner-sdk'); const redis = require('mobile-partner-sdk/redis');`), 'commonjs')).toBe(
      'function function true',
    );
    expect(run(probe(`import * as sdk from 'mobile-partner-sdk'; import * as redis from 'mobile-partner-sdk/redis';`), 'module')).toBe(
      'function function true',
    );
  });

  it('keeps the fleet classes out of the client entry', () => {
    for (const entry of ['dist/index.js', 'dist/index.cjs']) expect(loadGraph(join(root, entry))).not.toContain('RedisRateLimiter');
  });

  it('keeps the sandbox and its router out of the client entry', () => {
    for (const entry of ['dist/index.js', 'dist/index.cjs']) {
      const text = loadGraph(join(root, entry));
      expect(text).not.toMatch(/from ['"]hono|require\(['"]hono/);
      expect(text).not.toContain('startSandbox');
    }
  });

  it('loads the webhooks entry without the client code', () => {
    const text = loadGraph(join(root, 'dist/webhooks/index.cjs')) + loadGraph(join(root, 'dist/webhooks/index.js'));
    expect(text).not.toContain('PartnerClient');
    expect(text).not.toMatch(/require\(['"]undici/);
  });
});
