import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The published declarations of `mobile-partner-sdk/webhooks`, compiled as a partner's project
 * would: from the packed tarball, `strict`, `skipLibCheck: false`, and no `@types` package but
 * `@types/node`. The runtime dependencies are linked from this checkout (as an install would
 * bring them, without the network); none of the devDependencies' typings are there.
 */
const root = resolve(import.meta.dirname, '../..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
let consumer: string;

const usage = `
import {
  constructEventAsync,
  createFetchHandler,
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

function newestMtime(dir: string): number {
  return Math.max(...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => statSync(join(dir, name)).mtimeMs));
}

beforeAll(() => {
  const built = join(root, 'dist/webhooks/index.d.ts');
  if (!existsSync(built) || statSync(built).mtimeMs < newestMtime(join(root, 'src'))) {
    execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'ignore', timeout: 240_000 });
  }
  consumer = mkdtempSync(join(tmpdir(), 'mps-types-'));
  const packed = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', consumer], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  })
    .trim()
    .split('\n')
    .pop() as string;
  const installed = join(consumer, 'node_modules/mobile-partner-sdk');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(consumer, packed), '-C', installed, '--strip-components=1']);
  // What `npm install` would bring: the dependencies, and the one @types package allowed.
  const pkg = JSON.parse(
    execFileSync('node', ['-p', 'JSON.stringify(require("./package.json").dependencies)'], { cwd: installed, encoding: 'utf8' }),
  ) as Record<string, string>;
  for (const name of Object.keys(pkg)) symlinkSync(join(root, 'node_modules', name), join(consumer, 'node_modules', name), 'dir');
  mkdirSync(join(consumer, 'node_modules/@types'));
  symlinkSync(join(root, 'node_modules/@types/node'), join(consumer, 'node_modules/@types/node'), 'dir');
  symlinkSync(join(root, 'node_modules/undici-types'), join(consumer, 'node_modules/undici-types'), 'dir');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(join(consumer, 'esm.mts'), usage);
  writeFileSync(join(consumer, 'cjs.cts'), usage);
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2023', 'dom'],
      },
      files: ['esm.mts', 'cjs.cts'],
    }),
  );
}, 300_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

describe('published declarations of mobile-partner-sdk/webhooks', () => {
  it('compile in a strict consumer with only @types/node, from ESM and CommonJS', () => {
    expect(existsSync(join(consumer, 'node_modules/@types/ws'))).toBe(false);
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', consumer], { cwd: consumer, encoding: 'utf8', timeout: 120_000 });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  }, 120_000);
});
