import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './built.js';

/**
 * The packed tarball's limit, bytes (gzip, as `npm pack` reports it), without the guides: set at
 * 292,070 bytes plus 2.4 % (the goal of issue 36 is 300 kB) (JavaScript without comments, one set of declarations, no p-retry). It
 * only goes down: raising it needs a line in the CHANGELOG saying why. The guides (docs/*.md) ship
 * too, so that the README's links work in node_modules and on the npm page; their share is
 * measured apart and reported beside it. Raised to 302,000 for the fleet limiter's split, then to
 * 305,000 for the SDK's own check messages in the ESM and CommonJS builds and the CHANGELOG's growth.
 */
const MAX_PACKED_BYTES = 305_000;
/** What a client-only install may bring: the package's dependencies and theirs. */
const PRODUCTION_PACKAGES = ['mobile-partner-sdk', 'undici', 'zod'];

/** A partner's file using every entry point, compiled once as ESM (.mts) and once as CommonJS (.cts). */
const CONSUMER_SOURCE = `
import { PartnerClient, type Sim } from 'mobile-partner-sdk';
import { startSandbox, type SandboxContext, type SandboxHandle } from 'mobile-partner-sdk/sandbox';
import {
  constructEventAsync,
  createFetchHandler,
  createDeduplicator,
  createNodeHandler,
  createVoiceStreamServer,
  verifySignature,
  verifySignatureAsync,
  VoiceCall,
  VoiceStreamReceiver,
  type SmsEventData,
  type VoiceStreamFrame,
  type WebhookEvent,
} from 'mobile-partner-sdk/webhooks';
import { RedisDedupeStore, RedisRateLimiter, type RedisConnection } from 'mobile-partner-sdk/redis';

export type Used = [PartnerClient, Sim, SandboxContext, SandboxHandle, typeof startSandbox];
export const fleet = (redis: RedisConnection): PartnerClient => new PartnerClient({ rateLimit: new RedisRateLimiter({ redis }) });
export const dedupedNode = (redis: RedisConnection) =>
  createNodeHandler({ secret: 'whsec_a', dedupe: createDeduplicator({ store: new RedisDedupeStore({ redis }) }), onEvent: () => undefined });
export const node = createNodeHandler({ secret: async () => ['whsec_a'], onEvent: (event: WebhookEvent) => void event });
export const fetchHandler: (request: Request) => Promise<Response> = createFetchHandler({ secret: 'whsec_a', onEvent: () => undefined });
export const checked: number = verifySignature('{}', 't=1,v1=00', () => 'whsec_a').timestamp;
export const later: Promise<WebhookEvent> = constructEventAsync('{}', new Headers(), 'whsec_a');
export const alsoLater = verifySignatureAsync('{}', null, ['whsec_a']);
export const text = (data: SmsEventData): string | undefined => data.text;
export async function calls(): Promise<number> {
  const server = await createVoiceStreamServer({ path: '/voice' });
  let samples = 0;
  for await (const call of server.calls()) {
    const first: VoiceCall = call;
    for await (const frame of first as AsyncIterable<VoiceStreamFrame>) if (frame.type === 'audio') samples += frame.samples.length;
  }
  new VoiceStreamReceiver({ authorize: (request) => request.headers.authorization === 'Bearer x' });
  await server.close();
  return samples;
}
`;

let work: string;
let app: string;
let packed: { filename: string; size: number; files: { path: string }[] };

const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', timeout: 180_000 });

/**
 * The packed size without the guides: the tarball unpacked, its docs/ removed, packed again (same
 * manifest, same files otherwise), as `npm pack` reports the size.
 */
function packedSizeWithoutGuides(): number {
  const unpacked = join(work, 'without-guides');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', unpacked]);
  rmSync(join(unpacked, 'package', 'docs'), { recursive: true, force: true });
  const [result] = JSON.parse(npm(['pack', '--dry-run', '--ignore-scripts', '--json'], join(unpacked, 'package'))) as (typeof packed)[];
  if (!result) throw new Error('npm pack reported no tarball for the package without its guides');
  return result.size;
}

/** Runs an ES module in a fresh Node process inside the installed app; its stdout, trimmed. */
function runInApp(code: string): string {
  const file = join(app, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  return execFileSync(process.execPath, [file], { cwd: app, encoding: 'utf8', timeout: 30_000 }).trim();
}

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'mps-install-'));
  // --ignore-scripts: dist/ is fresh already, and prepack would rebuild it under other tests' feet.
  const [result] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], root)) as (typeof packed)[];
  if (!result) throw new Error('npm pack reported no tarball');
  packed = result;
  app = join(work, 'app');
  execFileSync('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'client-only-app', private: true, type: 'module' }));
  // Production dependencies only, as an app that deploys with `npm ci --omit=dev` gets them.
  npm(['install', '--omit=dev', '--prefer-offline', join(work, packed.filename)], app);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package, installed client-only', () => {
  it(`packs to at most ${MAX_PACKED_BYTES / 1000} kB without the guides, and without source maps or tests`, () => {
    const withoutGuides = packedSizeWithoutGuides();
    console.log(
      `packed: ${withoutGuides} bytes without the guides, ${packed.size - withoutGuides} bytes of guides beside it (${packed.size} in all)`,
    );
    expect(withoutGuides).toBeLessThanOrEqual(MAX_PACKED_BYTES);
    expect(packed.files.some((f) => f.path === 'docs/getting-started.md')).toBe(true);
    expect(packed.files.map((f) => f.path).filter((p) => p.endsWith('.map') || p.startsWith('src/') || p.startsWith('test/'))).toEqual([]);
  });

  it('pulls in only the HTTP client and the schema library', () => {
    const tree = JSON.parse(npm(['ls', '--omit=dev', '--all', '--json'], app)) as { dependencies?: Record<string, unknown> };
    const names = new Set<string>();
    const absent = new Set<string>();
    const walk = (deps: Record<string, unknown> | undefined): void => {
      for (const [name, node] of Object.entries(deps ?? {})) {
        const entry = node as { version?: string; dependencies?: Record<string, unknown> };
        // An optional peer that is not installed is listed without a version ("UNMET OPTIONAL DEPENDENCY").
        (entry.version ? names : absent).add(name);
        walk(entry.dependencies);
      }
    };
    walk(tree.dependencies);
    expect([...names].sort()).toEqual([...PRODUCTION_PACKAGES].sort());
    // The optional peers: ws for the voice stream, the OpenTelemetry API for tracing and metrics, ioredis for fleet mode.
    expect([...absent].sort()).toEqual(['@opentelemetry/api', 'ioredis', 'ws']);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/mobile-partner-sdk/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      scripts?: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['undici', 'zod']);
    // Nothing of the package runs on install.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[hook]).toBeUndefined();
  });

  it('runs the client against the sandbox, both from the installed package', () => {
    const out = runInApp(`
      import { PartnerClient } from 'mobile-partner-sdk';
      import { startSandbox } from 'mobile-partner-sdk/sandbox';
      const sandbox = await startSandbox({ seed: 7 });
      try {
        const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
        const page = await client.sims.list({ pageSize: 3 });
        console.log(page.data.length, typeof page.data[0].iccid);
        await client.close();
      } finally {
        await sandbox.close();
      }`);
    expect(out).toBe('3 string');
  });

  it('loads the CommonJS entries too', () => {
    const file = join(app, 'probe.cjs');
    writeFileSync(
      file,
      `const { PartnerClient } = require('mobile-partner-sdk'); const { createSandbox } = require('mobile-partner-sdk/sandbox');
       const { verifySignature } = require('mobile-partner-sdk/webhooks');
       console.log(typeof PartnerClient, typeof createSandbox, typeof verifySignature);`,
    );
    expect(execFileSync(process.execPath, [file], { cwd: app, encoding: 'utf8', timeout: 30_000 }).trim()).toBe('function function function');
  });

  it('names `npm install ws` when the voice-stream receiver is used without its optional peer', () => {
    const out = runInApp(`
      import { ConfigurationError } from 'mobile-partner-sdk';
      import { createVoiceStreamServer, VoiceStreamReceiver } from 'mobile-partner-sdk/webhooks';
      const failures = [];
      for (const attempt of [() => createVoiceStreamServer(), () => new VoiceStreamReceiver().ready()]) {
        try { await attempt(); failures.push('resolved'); } catch (error) { failures.push(error instanceof ConfigurationError && error.message); }
      }
      console.log(JSON.stringify(failures));`);
    const failures = JSON.parse(out) as unknown[];
    expect(failures).toHaveLength(2);
    for (const message of failures) expect(message).toMatch(/optional peer dependency.*npm install ws/);
  });

  it('compiles a use of every entry from ESM and CommonJS, strict, every installed declaration checked, without hono, ws, ioredis or their types installed', () => {
    // Public declarations must not depend on a devDependency's or an optional peer's typings (`ws`, `hono`, `ioredis`): the app has only @types/node.
    for (const name of ['esm.mts', 'cjs.cts']) writeFileSync(join(app, name), CONSUMER_SOURCE);
    // Node's types from this repository, alone: a type root holding this repository's whole @types
    // would also resolve `import … from 'ws'` in a declaration (to @types/ws) and hide the leak.
    const typeRoot = join(work, 'types');
    mkdirSync(typeRoot);
    symlinkSync(join(root, 'node_modules/@types/node'), join(typeRoot, 'node'), 'dir');
    const program = ts.createProgram([join(app, 'esm.mts'), join(app, 'cjs.cts')], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      typeRoots: [typeRoot],
      types: ['node'],
    });
    // What skipLibCheck: false adds, for what the install brought: the package's declarations and
    // its dependencies' (all under the app's node_modules), besides the app's own files. The
    // compiler's libs and @types/node are the partner's own setup, not the package's.
    const appDir = `${realpathSync(app)}/`;
    const installed = program.getSourceFiles().filter((file) => file.fileName.startsWith(appDir));
    expect(installed.filter((file) => file.fileName.includes('/node_modules/mobile-partner-sdk/dist/')).length).toBeGreaterThan(5);
    expect(installed.some((file) => file.fileName.includes('/node_modules/zod/'))).toBe(true);
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...installed.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
    ];
    expect(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => app, getNewLine: () => '\n' })).toBe(
      '',
    );
  }, 180_000);
});
