/**
 * A Node process whose instrumentation fails, with the built package: a span processor that
 * throws makes no call fail and the script exits 0; a `diagnostics_channel` subscriber that
 * throws is Node's to report (as an uncaught exception, the channel module's own rule for every
 * publisher), and the call it watched still completes as it would have.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './built.js';

let consumer: string;

beforeAll(() => {
  ensureBuilt();
  consumer = mkdtempSync(join(tmpdir(), 'mps-failing-instruments-'));
  mkdirSync(join(consumer, 'node_modules'));
  symlinkSync(root, join(consumer, 'node_modules', 'mobile-partner-sdk'), 'dir');
}, 270_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

/** Starts a sandbox, runs `body` (which sets `client`), prints the JSON `report` on stdout. */
function script(setup: string, body: string): string {
  return `
import { createRequire } from 'node:module';
import { PartnerClient } from 'mobile-partner-sdk';
import { startSandbox } from 'mobile-partner-sdk/sandbox';
const require = createRequire(import.meta.url);
const api = require(${JSON.stringify(join(root, 'node_modules/@opentelemetry/api'))});
const tracing = require(${JSON.stringify(join(root, 'node_modules/@opentelemetry/sdk-trace-base'))});
const hooks = require(${JSON.stringify(join(root, 'node_modules/@opentelemetry/context-async-hooks'))});
const report = { logged: [] };
const logger = { debug() {}, info() {}, warn: (message, fields) => report.logged.push(fields?.instrument ?? message), error: (message) => report.logged.push(message) };
const sandbox = await startSandbox({ port: 0, transactionDelayMs: 20 });
const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, logger });
${setup}
try {
  ${body}
} finally {
  await client.close();
  await sandbox.close();
}
console.log(JSON.stringify(report));
`;
}

function runScript(name: string, source: string): { status: number | null; report: Record<string, unknown>; stderr: string } {
  const file = join(consumer, `${name}.mjs`);
  writeFileSync(file, source);
  const child = spawnSync(process.execPath, [file], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
  const last = child.stdout.trim().split('\n').at(-1);
  return { status: child.status, report: last ? (JSON.parse(last) as Record<string, unknown>) : {}, stderr: child.stderr };
}

const CALLS = `
  report.list = (await client.sims.list({ pageSize: 1 })).data.length;
  report.missing = await client.sims.retrieveSubscription('8961000000000000000').catch((error) => error.name);
  const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
  report.waited = (await handle.wait({ pollIntervalMs: 100 })).status;
`;

describe('a process with failing instrumentation', () => {
  it('exits 0 with every call as it is untraced when a span processor throws at span start', () => {
    const outcome = runScript(
      'throwing-processor',
      script(
        `api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
         api.trace.setGlobalTracerProvider(new tracing.BasicTracerProvider({ spanProcessors: [{
           onStart() { throw new Error('processor down'); }, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {},
         }] }));`,
        CALLS,
      ),
    );
    expect({ status: outcome.status, stderr: outcome.stderr }).toEqual({ status: 0, stderr: '' });
    expect(outcome.report).toEqual({ list: 1, missing: 'NotFoundError', waited: 'COMPLETED', logged: ['tracing'] });
  });

  it("leaves a throwing diagnostics_channel subscriber to Node (an uncaught exception), the call's result unchanged", () => {
    const outcome = runScript(
      'throwing-subscriber',
      script(
        `const diagnostics = require('node:diagnostics_channel');
         report.uncaught = [];
         process.on('uncaughtException', (error) => report.uncaught.push(error.message));
         diagnostics.subscribe('mobile-partner-sdk:request:end', () => { throw new Error('subscriber down'); });`,
        CALLS,
      ),
    );
    expect({ status: outcome.status, stderr: outcome.stderr }).toEqual({ status: 0, stderr: '' });
    // One end message per successful call: the list, the provisioning, its token exchange and each poll.
    const uncaught = outcome.report.uncaught as string[];
    expect(uncaught.length).toBeGreaterThanOrEqual(4);
    expect(new Set(uncaught)).toEqual(new Set(['subscriber down']));
    expect(outcome.report).toMatchObject({ list: 1, missing: 'NotFoundError', waited: 'COMPLETED', logged: [] });
  });
});
