/**
 * After close(), a process exits by itself: no wait the server imposed, no sleep between the polls
 * of a wait(), no timer of the limiter outlives the client. Each case runs the built-from-source
 * client in a child process that never calls process.exit().
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompiledScripts, compileScripts } from '../helpers/bundle.js';
import { fail, ok } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';
import { runChild } from './run-child.js';

const CHILD = 'test/process/limits-exit.child.ts';
/** Far shorter than any wait the child could otherwise sit out (a minute's poll, a day's pause, close()'s 30 s). */
const EXIT_WITHIN_MS = 10_000;

const t = useTestServer();
let compiled: CompiledScripts;
beforeAll(async () => {
  compiled = await compileScripts([CHILD]);
});
afterAll(() => compiled.remove());

async function exitOf(mode: string): Promise<{ code: number | null; errors: string; report: { handles: string[]; ended: string[] } }> {
  const { code, stdout, stderr } = await runChild(compiled.path(CHILD), { CHILD_BASE_URL: t.server.url, CHILD_MODE: mode }, EXIT_WITHIN_MS);
  return {
    code,
    errors: stderr,
    report: JSON.parse(stdout.trim() || '{"handles":["(no report)"],"ended":[]}') as { handles: string[]; ended: string[] },
  };
}

describe('a process exits by itself after close()', () => {
  it("with calls meeting Remaining 0 of the account's limit and a reset a day away", async () => {
    const exhausted = ok(1, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '86400' } });
    t.server.on('GET /api/v1.1/exhausted', exhausted);
    t.server.on('GET /api/v1.1/ping', ok('pong'));
    const { code, errors, report } = await exitOf('reset');
    expect(errors).toBe('');
    expect(code).toBe(0);
    // The day-long reset is believed for maxServerWaitMs (150 ms): the later calls wait that long, then ask again.
    expect(report).toEqual({ handles: [], ended: ['answered', 'answered'] });
    expect(t.server.requestsTo('GET /api/v1.1/exhausted')).toHaveLength(2);
    expect(t.server.requestsTo('GET /api/v1.1/ping')).toHaveLength(1);
  });

  it('with a call after a 429 whose Retry-After is a day', async () => {
    t.server.on('GET /api/v1.1/throttled', fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '86400' } }));
    const { code, errors, report } = await exitOf('retry-after');
    expect(errors).toBe('');
    expect(code).toBe(0);
    // Each call meets a 429 past the cap and fails at once; the second asked again once the pause's 150 ms were over.
    expect(report).toEqual({ handles: [], ended: ['RateLimitError', 'RateLimitError'] });
    expect(t.server.requestsTo('GET /api/v1.1/throttled')).toHaveLength(2);
  });

  it('with a wait() sleeping a minute between two polls', async () => {
    t.server.on('GET /api/v3/transactions/tx_1', ok({ transactionId: 'tx_1', status: 'PENDING' }));
    const { code, errors, report } = await exitOf('wait');
    expect(errors).toBe('');
    expect(code).toBe(0);
    expect(report).toEqual({ handles: [], ended: ['ClientClosedError'] });
  });
});
