import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { elapsedSince } from '../helpers/server-client.js';

const WINDOW_MS = 1000;
const ACCOUNT_LIMIT = 120;

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimitWindowMs: WINDOW_MS });
});

afterAll(async () => {
  await sandbox.close();
});

async function throttledCount(): Promise<number> {
  const response = await fetch(`${sandbox.url}/_sandbox/stats`);
  const stats = (await response.json()) as { counters: Record<string, number> };
  return stats.counters['rateLimit.throttled'] ?? 0;
}

describe('pacing against the sandbox (120 per 1 s window, account-wide)', () => {
  it('sends 600 calls without a single 429, in no fewer windows than the limit needs', async () => {
    const client = new PartnerClient({
      baseUrl: sandbox.url,
      key: sandbox.key,
      secret: sandbox.secret,
      rateLimit: { account: { limit: ACCOUNT_LIMIT, windowMs: WINDOW_MS } },
    });
    const list = () => client.request({ method: 'GET', path: '/api/v1.1/sims', query: { pageSize: 10 } });
    try {
      // The token exchange first, then a fresh server window for the burst.
      await list();
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 100));
      const start = performance.now();
      const results = await Promise.all(Array.from({ length: 600 }, list));
      const wallMs = elapsedSince(start);
      expect(results).toHaveLength(600);
      expect(await throttledCount()).toBe(0);
      // Five windows of 120: the last batch cannot leave before four window lengths have passed.
      expect(wallMs).toBeGreaterThanOrEqual(4 * WINDOW_MS);
    } finally {
      await client.close();
    }
  }, 30_000);
});
