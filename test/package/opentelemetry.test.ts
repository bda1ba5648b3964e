/**
 * The built package and `@opentelemetry/api`, its optional peer dependency, in both module
 * systems: while no provider is registered, calls load nothing of it; once a tracer provider is
 * registered, the next call is traced (the API found from dist/ through createRequire).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './built.js';

let consumer: string;

beforeAll(() => {
  ensureBuilt();
  consumer = mkdtempSync(join(tmpdir(), 'mps-otel-consumer-'));
  mkdirSync(join(consumer, 'node_modules'));
  symlinkSync(root, join(consumer, 'node_modules', 'mobile-partner-sdk'), 'dir');
}, 270_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

/**
 * The probe's body, the same in both module systems: two calls against the sandbox, one before
 * and one after a tracer provider is registered; prints what was loaded and traced.
 */
const PROBE = `
const loaded = () => Object.keys(require.cache).filter((file) => file.includes('@opentelemetry')).length;
const sandbox = await startSandbox({ port: 0 });
const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
await client.sims.list({ pageSize: 1 });
const loadedWithoutProvider = loaded();
const api = require(${JSON.stringify(join(root, 'node_modules/@opentelemetry/api'))});
const tracing = require(${JSON.stringify(join(root, 'node_modules/@opentelemetry/sdk-trace-base'))});
const exporter = new tracing.InMemorySpanExporter();
api.trace.setGlobalTracerProvider(new tracing.BasicTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] }));
await client.sims.list({ pageSize: 1 });
await client.close();
await sandbox.close();
console.log(JSON.stringify({ loadedWithoutProvider, spans: exporter.getFinishedSpans().map((span) => span.name) }));
`;

function probe(type: 'commonjs' | 'module'): { loadedWithoutProvider: number; spans: string[] } {
  const file = join(consumer, type === 'module' ? 'otel-probe.mjs' : 'otel-probe.cjs');
  const source =
    type === 'module'
      ? `import { createRequire } from 'node:module';
         import { PartnerClient } from 'mobile-partner-sdk';
         import { startSandbox } from 'mobile-partner-sdk/sandbox';
         const require = createRequire(import.meta.url);
         ${PROBE}`
      : `const { PartnerClient } = require('mobile-partner-sdk');
         const { startSandbox } = require('mobile-partner-sdk/sandbox');
         (async () => { ${PROBE} })();`;
  writeFileSync(file, source);
  const out = execFileSync(process.execPath, [file], { cwd: consumer, encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as { loadedWithoutProvider: number; spans: string[] };
}

describe('@opentelemetry/api as an optional peer dependency', () => {
  it.each(['module', 'commonjs'] as const)('is not loaded until a provider is registered, then traces the next call (%s)', (type) => {
    const outcome = probe(type);
    expect(outcome.loadedWithoutProvider).toBe(0);
    expect(outcome.spans).toEqual(['GET /api/v1.1/sims']);
  });
});
