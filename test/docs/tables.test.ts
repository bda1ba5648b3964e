/**
 * Every table of README.md and docs/ is either held to the code by a test, found by its header
 * row wherever the guides put it, or named here as deliberately not checked, with the reason: a
 * new table fails this file until one of the two is said.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allTables, findTables, root } from './markdown.js';

/** Each table's header row, and the test that holds its rows to the code or to behaviour. */
const checkedBy: Array<[header: string[], test: string]> = [
  [['Package', 'Why it is there'], 'test/docs/package-tables.test.ts'],
  [['Script', 'Story'], 'test/docs/package-tables.test.ts'],
  [['Import', 'What it holds'], 'test/docs/package-tables.test.ts'],
  [['Tier', 'Command', 'Needs', 'What is in it'], 'test/docs/package-tables.test.ts'],
  [['Runtime', 'Client wire', 'Tested by'], 'test/docs/package-tables.test.ts'],
  [['Option', 'Default', 'Meaning'], 'test/core/client-options-docs.test.ts'],
  [['Option', 'Accepted'], 'test/core/client-options-docs.test.ts'],
  [['Default', 'Value', 'Where it applies'], 'test/core/defaults-docs.test.ts'],
  [['Options object', 'Refused with'], 'test/core/unknown-options-docs.test.ts'],
  [['Class', 'When'], 'test/core/error-classes-docs.test.ts'],
  [['HTTP', 'code', 'the write'], 'test/core/write-outcome.test.ts'],
  [
    ['Failure', 'GET, routes the spec marks (idem), writes with your own `idempotencyKey`', 'Other writes, the asynchronous writes included'],
    'test/core/retries-docs.test.ts',
  ],
  [['the answer', 'pauses', 'until'], 'test/core/rate-limits-docs.test.ts'],
  [['method', 'when'], 'test/core/rate-limits-docs.test.ts'],
  [['Redis is…', 'the limiter', 'the dedupe store'], 'test/redis/fleet-docs.test.ts'],
  [['key', 'holds', 'TTL'], 'test/redis/fleet-docs.test.ts'],
  [['channel', 'when', 'message'], 'test/observability/observability-docs.test.ts'],
  [['reason', 'the call ended because', 'it rejects with'], 'test/core/call-end.test.ts'],
  [['attribute', 'value'], 'test/observability/observability-docs.test.ts'],
  [['instrument', 'kind', 'unit', 'also by'], 'test/observability/observability-docs.test.ts'],
  [['Member', 'Type', 'Effect'], 'test/resources/webhook-update-docs.test.ts'],
  [['Flag', 'Option', 'Value'], 'test/sandbox/options-docs.test.ts'],
  [['Option', 'Type and range', 'Default', 'Meaning'], 'test/sandbox/options-docs.test.ts'],
  [['Limit', 'Range', 'Default', 'Over it'], 'test/sandbox/options-docs.test.ts'],
  [['Call', 'Body', 'Answer'], 'test/sandbox/control-docs.test.ts'],
  [['Method', 'Route', 'Returns'], 'test/sandbox/control-docs.test.ts'],
  [['Call', 'Answer'], 'test/sandbox/webhook-registrations-docs.test.ts'],
  [['Member', 'Accepts', 'Effect'], 'test/sandbox/webhook-registrations-docs.test.ts'],
  [['type', 'body members', 'sent as', 'masked as'], 'test/sandbox/webhook-registrations-docs.test.ts'],
  [['Header', 'Value'], 'test/sandbox/webhook-registrations-docs.test.ts'],
  [['Situation', 'Status', 'Body'], 'test/webhooks/guide-tables-docs.test.ts'],
  [['reason', 'meaning'], 'test/webhooks/guide-tables-docs.test.ts'],
  [['`type`', 'when', '`data`'], 'test/webhooks/guide-tables-docs.test.ts'],
  // docs/shapes.md: the differences between the client's checks and the sandbox's, which the contract test holds both sides to.
  [['Format', 'Rule', 'Where'], 'test/contract/differential.test.ts'],
  [['Id', 'Client', 'Sandbox', 'Why'], 'test/contract/differential.test.ts'],
  [['What', 'Choice'], 'test/contract/differential.test.ts'],
  [['Endpoint', 'Request', 'Answer'], 'test/contract/differential.test.ts'],
  [['Configuration', 'Mutates', 'Runs'], 'test/docs/development-docs.test.ts'],
];

/** Deliberately not checked: these tables are figures a benchmark run measured on one machine, not behaviour the code promises. */
const notChecked: Array<[header: string[], reason: string]> = [
  [['figure', 'value', 'baseline', 'ratio', 'goal', 'met?'], 'the latest benchmark run (docs/performance.md)'],
  [['figure', 'value'], 'the latest soak run (docs/performance.md)'],
  [
    ['File', 'Mutants', 'Score', 'With later tests', 'Listed equivalent', 'Without the listed', 'Run time', 'Measured'],
    'the latest mutation runs (docs/development.md)',
  ],
  [['figure', 'result', 'goal'], "fleet mode's benchmark figures (docs/fleet.md)"],
  [
    [
      'sims.list(20), concurrency',
      'API absent vs the build before tracing',
      'API absent vs undici',
      'tracing enabled vs undici',
      'CPU per call: before / absent / enabled / undici',
    ],
    'the cost of tracing as measured when it was built (docs/observability.md)',
  ],
  [
    [
      'sims.list(20), concurrency',
      'API absent vs undici',
      'tracing enabled vs undici',
      'enabled vs undici, traced process',
      'enabled vs absent',
      'CPU per call: undici / undici, traced process / absent / enabled',
    ],
    'the cost of tracing as measured by the benchmark (docs/observability.md)',
  ],
];

const headerRow = (header: readonly string[]): string => `| ${header.join(' | ')} |`;
const listed = new Set([...checkedBy, ...notChecked].map(([header]) => headerRow(header)));

describe('the tables of the guides', () => {
  it('are each held by a test, or named as not checked with the reason', () => {
    const unaccounted = allTables()
      .filter((table) => !listed.has(headerRow(table.header)))
      .map((table) => `${table.page}:${table.line} ${headerRow(table.header)}`);
    expect(unaccounted).toEqual([]);
  });

  it('are named here only where a page has them, each with a test file that exists', () => {
    for (const [header, test] of checkedBy) {
      expect(findTables(header).length).toBeGreaterThan(0);
      expect([test, existsSync(join(root, test))]).toEqual([test, true]);
    }
    for (const [header] of notChecked) expect(findTables(header).length).toBeGreaterThan(0);
  });

  it('have as many cells in each row as in their header, as GitHub needs to show them whole', () => {
    expect(allTables().flatMap((table) => table.unevenRows)).toEqual([]);
  });
});
