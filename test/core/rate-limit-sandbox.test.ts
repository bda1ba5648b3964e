import { describe, expect, it, vi } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { settleOnFakeClock, useFakeClock } from '../helpers/clock.js';

const WINDOW_MS = 1000;
const ACCOUNT_LIMIT = 120;

// The sandbox and the client both run on the fake clock: its windows pass without real waiting.
useFakeClock();

async function throttledCount(url: string): Promise<number> {
  const response = await fetch(`${url}/_sandbox/stats`);
  const stats = (await response.json()) as { counters: Record<string, number> };
  return stats.counters['rateLimit.throttled'] ?? 0;
}

describe('pacing against the sandbox (120 per 1 s window, account-wide)', () => {
  it('sends 600 calls without a single 429, in no fewer windows than the limit needs', async () => {
    // Started on the fake clock, so the sandbox's windows and the client's read the same time.
    const sandbox = await startSandbox({ port: 0, rateLimitWindowMs: WINDOW_MS });
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
      await vi.advanceTimersByTimeAsync(WINDOW_MS + 100);
      const start = performance.now();
      const results = await settleOnFakeClock(Promise.all(Array.from({ length: 600 }, list)));
      const tookMs = performance.now() - start;
      expect(results).toHaveLength(600);
      expect(await throttledCount(sandbox.url)).toBe(0);
      // Five windows of 120: the last batch cannot leave before four window lengths have passed.
      expect(tookMs).toBeGreaterThanOrEqual(4 * WINDOW_MS);
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});
