import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as main from '../../src/index.js';
import * as webhooks from '../../src/webhooks/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every source file reachable from `entry` through relative imports. */
function reachable(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
      visit(join(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts')));
    }
  };
  visit(join(root, entry));
  return [...seen].map((file) => relative(root, file)).sort();
}

describe('mobile-partner-sdk/webhooks entry', () => {
  it('pulls in no client, transport or resource code', () => {
    const files = reachable('src/webhooks/index.ts');
    expect(files).toContain('src/webhooks/verify.ts');
    const outside = files.filter((file) => !file.startsWith('src/webhooks/'));
    expect(outside).toEqual(['src/core/errors.ts']);
  });

  it('shares its helpers and error class with the main entry', () => {
    expect(main.verifySignature).toBe(webhooks.verifySignature);
    expect(main.signPayload).toBe(webhooks.signPayload);
    expect(main.constructEvent).toBe(webhooks.constructEvent);
    expect(main.WebhookSignatureError).toBe(webhooks.WebhookSignatureError);
  });
});
