import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as defaults from '../../src/core/defaults.js';

// The "Default numbers" table of docs/configuration.md, row label → the constant of src/core/defaults.ts it states.
const rows: Record<string, keyof typeof defaults> = {
  '`timeoutMs`': 'DEFAULT_TIMEOUT_MS',
  '`maxRetries`': 'DEFAULT_MAX_RETRIES',
  '`maxRetries` ceiling': 'MAX_RETRIES_LIMIT',
  'backoff base': 'BACKOFF_BASE_MS',
  'backoff cap': 'BACKOFF_CAP_MS',
  '`maxServerWaitMs`': 'DEFAULT_MAX_SERVER_WAIT_MS',
  '`maxResponseBytes`': 'DEFAULT_MAX_RESPONSE_BYTES',
  '`idempotencyKey` length': 'MAX_IDEMPOTENCY_KEY_LENGTH',
  'deadline slack': 'DEADLINE_SLACK_MS',
  'in-flight first wait': 'IN_FLIGHT_FIRST_WAIT_MS',
  'in-flight longest wait': 'IN_FLIGHT_MAX_WAIT_MS',
  '`close()` `timeoutMs`': 'DEFAULT_CLOSE_TIMEOUT_MS',
  'token refresh margin': 'TOKEN_REFRESH_MARGIN_MS',
  'token fallback lifetime': 'FALLBACK_TOKEN_LIFETIME_MS',
  '`wait()` `timeoutMs`': 'DEFAULT_WAIT_TIMEOUT_MS',
  '`wait()` `pollIntervalMs`': 'DEFAULT_POLL_INTERVAL_MS',
  '`wait()` `maxPollIntervalMs`': 'DEFAULT_MAX_POLL_INTERVAL_MS',
  'poll interval floor': 'MIN_POLL_INTERVAL_MS',
  'webhook `toleranceSeconds`': 'DEFAULT_TOLERANCE_SECONDS',
  'webhook `maxBodyBytes`': 'DEFAULT_MAX_BODY_BYTES',
  'dedupe `ttlMs`': 'DEFAULT_DEDUPE_TTL_MS',
  'fleet store timeout': 'STORE_COMMAND_TIMEOUT_MS',
  'fleet store retry': 'STORE_RETRY_AFTER_MS',
  'fleet longest poll': 'STORE_MAX_POLL_MS',
};

function guideTable(): Map<string, string> {
  const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const section = page
    .split('## Default numbers')[1]
    ?.split('\n\n')
    .find((block) => block.startsWith('| Default |'));
  if (!section) throw new Error('docs/configuration.md has no "Default numbers" table');
  const table = new Map<string, string>();
  for (const line of section.split('\n').slice(2)) {
    const [label, value] = line.split(' | ').map((cell) => cell.replace(/^\| /, '').trim());
    if (label !== undefined && value !== undefined) table.set(label, value);
  }
  return table;
}

describe("the guide's table of default numbers", () => {
  const table = guideTable();

  it('has one row per default of src/core/defaults.ts, and no other', () => {
    expect([...table.keys()].sort()).toEqual(Object.keys(rows).sort());
    expect(Object.values(rows).sort()).toEqual(Object.keys(defaults).sort());
  });

  it.each(Object.entries(rows))('%s states %s', (label, name) => {
    expect(table.get(label)).toBe(`\`${defaults[name]}\``);
  });
});
