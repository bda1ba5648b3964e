import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as webhooks from '../../src/webhooks/index.js';
import * as web from '../../src/webhooks/web.js';

const root = resolve(import.meta.dirname, '../..');
let workdir: string;

beforeAll(() => {
  const built = join(root, 'dist/webhooks/web.js');
  const newestSource = Math.max(
    ...readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).map((name) => statSync(join(root, 'src', name)).mtimeMs),
  );
  if (!existsSync(built) || statSync(built).mtimeMs < newestSource) {
    execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'ignore', timeout: 240_000 });
  }
  workdir = mkdtempSync(join(tmpdir(), 'mps-workerd-'));
  mkdirSync(join(workdir, 'node_modules'));
  symlinkSync(root, join(workdir, 'node_modules', 'mobile-partner-sdk'), 'dir');
}, 270_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

describe('mobile-partner-sdk/webhooks under the workerd and edge-light conditions', () => {
  it('offers the same objects as the Node entry, minus what needs Node', () => {
    const all = webhooks as Record<string, unknown>;
    for (const [name, value] of Object.entries(web)) expect(all[name], name).toBe(value);
    const left = Object.keys(webhooks).filter((name) => !(name in web));
    expect(left.sort()).toEqual(
      [
        'PcmDecoder',
        'RAW_BODY_MISSING_MESSAGE',
        'VOICE_SAMPLE_RATE',
        'VoiceCall',
        'VoiceStreamReceiver',
        'constructEvent',
        'createNodeHandler',
        'createVoiceStreamServer',
        'encodePcm16le',
        'signPayload',
        'toWav',
        'verifySignature',
        'wavHeader',
        'webhookMiddleware',
        'writeWav',
      ].sort(),
    );
  });

  it.each(['workerd', 'edge-light'])('bundles for %s with no Node module, and the bundle verifies a delivery', async (condition) => {
    writeFileSync(
      join(workdir, 'worker.mjs'),
      `import { createFetchHandler } from 'mobile-partner-sdk/webhooks';
       export const events = [];
       export default { fetch: createFetchHandler({ secret: async () => 'whsec_worker', onEvent: (event) => void events.push(event) }) };`,
    );
    const outfile = join(workdir, `bundle-${condition}.mjs`);
    // platform neutral: a Node built-in anywhere in the graph fails the build, as it does in wrangler without nodejs_compat.
    const result = await build({
      entryPoints: [join(workdir, 'worker.mjs')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: [condition],
      mainFields: ['module', 'main'],
      outfile,
      logLevel: 'silent',
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((file) => file.includes('dist/webhooks/web.js'))).toBe(true);
    expect(inputs.filter((file) => /voice|wav|node_modules\/ws\//.test(file))).toEqual([]);

    const worker = (await import(pathToFileURL(outfile).href)) as {
      default: { fetch: (request: Request) => Promise<Response> };
      events: Array<{ type: string }>;
    };
    const body = JSON.stringify({ event: 'sms.received', text: 'from the edge' });
    const request = (signature: string): Request =>
      new Request('https://worker.example/webhooks', { method: 'POST', headers: { 'x-service-signature': signature }, body });
    const good = await worker.default.fetch(request(webhooks.signPayload(body, 'whsec_worker')));
    expect(good.status).toBe(200);
    expect(worker.events).toEqual([expect.objectContaining({ type: 'sms', data: { event: 'sms.received', text: 'from the edge' } })]);
    const forged = await worker.default.fetch(request(webhooks.signPayload(body, 'whsec_other')));
    expect(await forged.json()).toEqual({ error: 'invalid_webhook', reason: 'signature_mismatch' });
  });
});
