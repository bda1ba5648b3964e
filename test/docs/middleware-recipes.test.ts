/**
 * The middleware guide's recipes, run as written: each ```ts block under "Recipes" is written to a
 * module of its own (its `mobile-partner-sdk` import pointed at the source), imported, and the
 * middleware it exports is put to work against a sandbox over loopback.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Middleware, NotFoundError, PartnerClient } from '../../src/index.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { listen } from '../helpers/server.js';
import { fences, readPage, root } from './markdown.js';

const SOURCE = pathToFileURL(join(root, 'src/index.ts')).href;
let dir: string;
let sandbox: SandboxHandle;
const recipes: Record<string, unknown> = {};

beforeAll(async () => {
  const page = readPage('docs/middleware.md');
  const blocks = fences(page.slice(page.indexOf('## Recipes')))
    .filter((fence) => fence.info === 'ts')
    .map((fence) => fence.code.replaceAll("from 'mobile-partner-sdk'", `from ${JSON.stringify(SOURCE)}`));
  dir = mkdtempSync(join(tmpdir(), 'mps-recipes-'));
  mkdirSync(dir, { recursive: true });
  for (const [index, code] of blocks.entries()) {
    const file = join(dir, `recipe-${index}.ts`);
    writeFileSync(file, code);
    Object.assign(recipes, (await import(pathToFileURL(file).href)) as Record<string, unknown>);
  }
  sandbox = await startSandbox({ port: 0, seed: 7 });
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function recipe<T>(name: string): T {
  const found = recipes[name];
  if (found === undefined) throw new Error(`the guide's recipes export no ${name}`);
  return found as T;
}

function clientWith(middleware: Middleware[], baseUrl = sandbox.url): PartnerClient {
  return new PartnerClient({ baseUrl, key: sandbox.key, secret: sandbox.secret, middleware, maxRetries: 0 });
}

describe("the middleware guide's recipes", () => {
  it('exports the five recipes', () => {
    expect(Object.keys(recipes).sort()).toEqual(['readCache', 'readFallback', 'requestLog', 'stubFor', 'tenantHeader']);
  });

  it('tenantHeader sends the header on every request, the token exchange included', async () => {
    const client = clientWith([recipe<(tenant: string) => Middleware>('tenantHeader')('acme')]);
    const from = sandbox.requests().length;
    await client.sims.list({ pageSize: 1 });
    await client.close();
    const sent = sandbox.requests().slice(from);
    expect(sent.map((request) => request.path)).toEqual(['/api/v1.1/auth/token', '/api/v1.1/sims']);
    for (const request of sent) expect(request.headers['x-tenant']).toBe('acme');
  });

  it('requestLog writes one line per attempt, with the status', async () => {
    const lines: string[] = [];
    const client = clientWith([recipe<(write: (line: string) => void) => Middleware>('requestLog')((line) => lines.push(line))]);
    await client.sims.list({ pageSize: 1 });
    await client.sims.retrieveSubscription('8900000000000000000').catch(() => undefined);
    await client.close();
    expect(lines.map((line) => line.replace(/ \d+ ms$/, ''))).toEqual(['auth.token #1 200', 'sims.list #1 200', 'sims.retrieveSubscription #1 404']);
  });

  it('readCache answers a repeated read from the cache until its TTL, and never caches a write', async () => {
    const client = clientWith([recipe<(ttlMs: number) => Middleware>('readCache')(60_000)]);
    const first = await client.sims.list({ pageSize: 2 });
    const from = sandbox.requests().length;
    const second = await client.sims.list({ pageSize: 2 });
    expect(second.data).toEqual(first.data);
    expect(sandbox.requests().length).toBe(from);
    await client.sms.send({ fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+61400999888', text: 'not cached' }).catch(() => undefined);
    expect(sandbox.requests().length).toBe(from + 1);
    await client.close();
    // Past its TTL, the read goes to the server again.
    const shortLived = clientWith([recipe<(ttlMs: number) => Middleware>('readCache')(1)]);
    await shortLived.sims.list({ pageSize: 2 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const before = sandbox.requests().length;
    await shortLived.sims.list({ pageSize: 2 });
    expect(sandbox.requests().length).toBe(before + 1);
    await shortLived.close();
  });

  it('stubFor answers one operation without sending it, and lets the others through', async () => {
    const stubFor = recipe<(operation: string, data: unknown, status?: number) => Middleware>('stubFor');
    const client = clientWith([stubFor('billing.retrieveCreditBalance', { creditBalance: [] })]);
    const from = sandbox.requests().length;
    await expect(client.billing.retrieveCreditBalance()).resolves.toEqual({ creditBalance: [] });
    expect(
      sandbox
        .requests()
        .slice(from)
        .map((request) => request.path),
    ).toEqual(['/api/v1.1/auth/token']);
    await expect(client.sims.list({ pageSize: 1 })).resolves.toMatchObject({ data: [expect.anything()] });
    const missing = clientWith([stubFor('sims.retrieveSubscription', undefined, 404)]);
    await expect(missing.sims.retrieveSubscription('8961000000000000001')).rejects.toBeInstanceOf(NotFoundError);
    await client.close();
    await missing.close();
  });

  it('readFallback sends a read that cannot reach the API to the fallback origin, and a write nowhere else', async () => {
    // The primary origin exchanges tokens (passed on to the sandbox) and drops every other connection.
    const primary = await listen((request, response) => {
      if (request.url !== '/api/v1.1/auth/token') {
        request.socket.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void fetch(`${sandbox.url}${request.url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        }).then(async (answer) => {
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(await answer.text());
        });
      });
    });
    try {
      const client = clientWith([recipe<(origin: string) => Middleware>('readFallback')(sandbox.url)], primary.url);
      const from = sandbox.requests().length;
      await expect(client.sims.list({ pageSize: 1 })).resolves.toMatchObject({ data: [expect.anything()] });
      expect(
        sandbox
          .requests()
          .slice(from)
          .map((request) => `${request.method} ${request.path}`),
      ).toEqual(['POST /api/v1.1/auth/token', 'GET /api/v1.1/sims']);
      const write = await client.sms
        .send({ fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+61400999888', text: 'x' })
        .catch((error: unknown) => error);
      expect((write as Error).name).toBe('ConnectionError');
      await client.close();
    } finally {
      await primary.close();
    }
  });
});
