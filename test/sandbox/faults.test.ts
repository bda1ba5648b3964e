import { describe, expect, it } from 'vitest';
import { createSandbox, startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle, StartSandboxOptions } from '../../src/sandbox/index.js';
import type { Answer, CallInit } from './helpers.js';
import { call, tokenFor } from './helpers.js';

/** A call whose socket may be destroyed: 'reset' instead of a rejection. */
async function attempt(sandbox: SandboxHandle, method: string, path: string, init: CallInit = {}): Promise<Answer | 'reset'> {
  try {
    return await call(sandbox, method, path, init);
  } catch {
    return 'reset';
  }
}

/** A forced rule without an answer replaces the dice for one request: the token exchange is spared. */
async function cleanToken(sandbox: SandboxHandle): Promise<string> {
  await call(sandbox, 'POST', '/_sandbox/force', { body: { method: 'POST', path: '/api/v1.1/auth/token' } });
  return tokenFor(sandbox);
}

async function withSandbox(options: StartSandboxOptions, body: (sandbox: SandboxHandle, token: string) => Promise<void>): Promise<void> {
  const sandbox = await startSandbox({ port: 0, rateLimit: false, ...options });
  try {
    const token = await cleanToken(sandbox);
    await body(sandbox, token);
  } finally {
    await sandbox.close();
  }
}

const counters = async (sandbox: SandboxHandle): Promise<Record<string, number>> =>
  (await call(sandbox, 'GET', '/_sandbox/stats')).body.counters as Record<string, number>;

const commits = async (sandbox: SandboxHandle): Promise<Record<string, { route: string; count: number }>> =>
  (await call(sandbox, 'GET', '/_sandbox/commits')).body.commits as Record<string, { route: string; count: number }>;

const sms = (sandbox: SandboxHandle, text: string) => ({ fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+14155550100', text });

describe('reset after the server commits', () => {
  it('forced: applies the write, stores its idempotency entry, then destroys the socket; the keyed retry gets the replay', async () => {
    await withSandbox({}, async (sandbox, token) => {
      await call(sandbox, 'POST', '/_sandbox/force', { body: { method: 'POST', path: '/api/v1.1/sms', resetAfter: true } });
      const headers = { 'idempotency-key': 'after-1', 'x-request-id': 'op-1' };
      const init = { token, body: sms(sandbox, 'after'), headers };
      expect(await attempt(sandbox, 'POST', '/api/v1.1/sms', init)).toBe('reset');
      expect((await counters(sandbox))['sms.sent']).toBe(1);

      const retry = await attempt(sandbox, 'POST', '/api/v1.1/sms', init);
      expect(retry).not.toBe('reset');
      expect((retry as Answer).status).toBe(201);
      expect((retry as Answer).headers.get('idempotency-replayed')).toBe('true');
      expect((await counters(sandbox))['sms.sent']).toBe(1);
      expect(await commits(sandbox)).toEqual({ 'op-1': { route: 'POST /api/v1.1/sms', count: 1 } });
    });
  });

  it('seeded: every request past the route is reset, and an unkeyed retry applies the write a second time', async () => {
    await withSandbox({ faults: { resetAfterRate: 1, seed: 3 } }, async (sandbox, token) => {
      const init = { token, body: { name: 'Ada', email: 'ada@soak.example', role: 'Admin' }, headers: { 'x-request-id': 'op-2' } };
      expect(await attempt(sandbox, 'POST', '/api/v1.1/team-members', init)).toBe('reset');
      expect(await attempt(sandbox, 'POST', '/api/v1.1/team-members', init)).toBe('reset');
      const stats = await counters(sandbox);
      expect(stats['teamMembers.create']).toBe(1);
      expect(stats['faults.resetAfter']).toBe(2);
      // The second attempt reached the route too, which refused it (409): not a commit.
      expect((await commits(sandbox))['op-2']).toEqual({ route: 'POST /api/v1.1/team-members', count: 1 });
      const list = sandbox.requests().filter((r) => r.path === '/api/v1.1/team-members');
      expect(list.map((r) => r.status)).toEqual([0, 0]);
    });
  });

  it('journals each tagged write as often as its route applied it, and reset forgets the journal', async () => {
    await withSandbox({}, async (sandbox, token) => {
      for (const text of ['a', 'b']) {
        await call(sandbox, 'POST', '/api/v1.1/sms', { token, body: sms(sandbox, text), headers: { 'x-request-id': 'twice' } });
      }
      await call(sandbox, 'POST', '/api/v1.1/sms', { token, body: sms(sandbox, 'c'), headers: { 'x-request-id': 'once' } });
      await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token, headers: { 'x-request-id': 'read' } });
      await call(sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body: { portInNumber: '+61400111222' }, headers: { 'x-request-id': 'check' } });
      await call(sandbox, 'POST', '/api/v1.1/sms', {
        token,
        body: { ...sms(sandbox, 'd'), fromNumber: '+61255501234' },
        headers: { 'x-request-id': 'refused' },
      });
      expect(await commits(sandbox)).toEqual({
        twice: { route: 'POST /api/v1.1/sms', count: 2 },
        once: { route: 'POST /api/v1.1/sms', count: 1 },
      });
      await call(sandbox, 'POST', '/_sandbox/reset');
      expect(await commits(sandbox)).toEqual({});
    });
  });
});

describe('injected answers', () => {
  it('answers 503 envelopes without details, and applies nothing', async () => {
    await withSandbox({ faults: { unavailableRate: 1 } }, async (sandbox, token) => {
      const answer = await call(sandbox, 'POST', '/api/v1.1/sms', { token, body: sms(sandbox, 'x') });
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
      expect((await counters(sandbox))['sms.sent']).toBeUndefined();
      expect((await counters(sandbox))['faults.unavailable']).toBe(1);
    });
  });

  it('answers an HTML 502 gateway page', async () => {
    await withSandbox({ faults: { gatewayRate: 1 } }, async (sandbox, token) => {
      const answer = await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token });
      expect(answer.status).toBe(502);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.body).toContain('502 Bad Gateway');
    });
  });

  it('answers 429 RATE_LIMITED storms with the configured Retry-After and no X-RateLimit headers', async () => {
    await withSandbox({ rateLimit: true, faults: { throttleRate: 1, throttleRetryAfterSeconds: 0 } }, async (sandbox, token) => {
      const answer = await call(sandbox, 'POST', '/api/v1.1/sms', { token, body: sms(sandbox, 'x') });
      expect(answer.status).toBe(429);
      expect(answer.body.error.code).toBe('RATE_LIMITED');
      expect(answer.headers.get('retry-after')).toBe('0');
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
      expect((await counters(sandbox))['sms.sent']).toBeUndefined();
    });
  });
});

describe('hangs', () => {
  it('holds the answer while the write is in flight (a keyed retry meets 409 CONFLICT), then applies it once', async () => {
    await withSandbox({ faults: { hangRate: 1, hangMs: 1000, seed: 1 } }, async (sandbox, token) => {
      const init = { token, body: sms(sandbox, 'slow'), headers: { 'idempotency-key': 'hang-1' } };
      const first = fetch(`${sandbox.url}/api/v1.1/sms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
        body: JSON.stringify(init.body),
      });
      // The retry does not hang past the in-flight check: the idempotency entry answers it first.
      const retry = await call(sandbox, 'POST', '/api/v1.1/sms', init);
      expect([retry.status, retry.body.error.code]).toEqual([409, 'CONFLICT']);
      expect((await counters(sandbox))['sms.sent']).toBeUndefined();
      const late = await first;
      expect(late.status).toBe(201);
      expect((await counters(sandbox))['sms.sent']).toBe(1);
    });
  });

  it('never answers within a client timeout, and close() ends a hang at once', async () => {
    const sandbox = await startSandbox({ port: 0, rateLimit: false, faults: { hangRate: 1, hangMs: 600_000 } });
    const token = await cleanToken(sandbox);
    const pending = attempt(sandbox, 'GET', '/api/v1.1/credit-balance', { token });
    const timedOut = await fetch(`${sandbox.url}/api/v1.1/credit-balance`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(50),
    }).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    expect(timedOut).toBe('TimeoutError');
    const stats = await fetch(`${sandbox.url}/_sandbox/stats`).then((res) => res.json() as Promise<{ counters: Record<string, number> }>);
    expect(stats.counters['faults.hang']).toBeGreaterThanOrEqual(2);
    await sandbox.close();
    expect(await pending).toBe('reset');
  });
});

describe('seeded dice', () => {
  it('draw the same shapes in the same order for the same seed, and the shares follow the rates', async () => {
    const faults = {
      resetRate: 0.1,
      errorRate: 0.1,
      resetAfterRate: 0.1,
      unavailableRate: 0.1,
      gatewayRate: 0.1,
      throttleRate: 0.1,
      throttleRetryAfterSeconds: 0,
      seed: 11,
    };
    const run = async (): Promise<string[]> => {
      const outcomes: string[] = [];
      await withSandbox({ faults }, async (sandbox, token) => {
        for (let i = 0; i < 200; i++) {
          const answer = await attempt(sandbox, 'GET', '/api/v1.1/credit-balance', { token });
          outcomes.push(answer === 'reset' ? 'reset' : String(answer.status));
        }
      });
      return outcomes;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const share = (outcome: string): number => first.filter((o) => o === outcome).length / first.length;
    // About 0.1 each of reset-before and reset-after (same shape on the wire), and of each answer.
    expect(share('reset')).toBeGreaterThan(0.1);
    expect(share('reset')).toBeLessThan(0.3);
    for (const status of ['500', '503', '502', '429']) {
      expect(share(status)).toBeGreaterThan(0.03);
      expect(share(status)).toBeLessThan(0.2);
    }
    expect(share('200')).toBeGreaterThan(0.4);
  });

  it('refuses rates out of range, shared rates above 1 and hangs beyond the cap', () => {
    expect(() => createSandbox({ faults: { hangRate: 1.5 } })).toThrow(/hangRate/);
    expect(() => createSandbox({ faults: { gatewayRate: 0.6, throttleRate: 0.6 } })).toThrow(/at most 1/);
    expect(() => createSandbox({ faults: { hangMs: 600_001 } })).toThrow(/hangMs/);
    expect(() => createSandbox({ faults: { throttleRetryAfterSeconds: -1 } })).toThrow(/throttleRetryAfterSeconds/);
  });
});
