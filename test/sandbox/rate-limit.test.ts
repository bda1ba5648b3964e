import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { callEndpoint, ENDPOINTS, prepareIds } from './endpoints.js';
import { call, open, useSandbox } from './helpers.js';

let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('rate limits', () => {
  it('counts a per-endpoint limit with X-RateLimit headers, then answers 429 with Retry-After only', async () => {
    // The spec's own 60 s window on the sandbox clock: the test moves the clock instead of waiting,
    // so a slow machine cannot let the window lapse in the middle of the count.
    const opened = await open({ rateLimit: true, rateLimitWindowMs: 60_000 });
    sandbox = opened.sandbox;
    const body = { portInNumber: '+61400111222' };
    const answers = [];
    for (let i = 0; i < 21; i++) answers.push(await call(sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body }));
    expect(answers[0]?.status).toBe(200);
    expect(answers[0]?.headers.get('x-ratelimit-limit')).toBe('20');
    expect(answers[0]?.headers.get('x-ratelimit-remaining')).toBe('19');
    expect(answers[0]?.headers.get('x-ratelimit-reset')).toBe('60');
    expect(answers[19]?.headers.get('x-ratelimit-remaining')).toBe('0');
    const throttled = answers[20]!;
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('RATE_LIMITED');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(Number(throttled.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(throttled.headers.get('x-ratelimit-limit')).toBeNull();
    expect(throttled.headers.get('x-ratelimit-remaining')).toBeNull();

    // Other endpoints keep working (spec part 8 rule 3) ...
    const other = await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token: opened.token });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-limit')).toBe('120');
    // ... and the window reopens once it has passed, on the sandbox clock.
    expect((await call(sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body })).status).toBe(429);
    sandbox.advanceTime(60_000);
    expect((await call(sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body })).status).toBe(200);
  });

  it('applies the account-wide limit of 120 per window across endpoints', async () => {
    const opened = await open({ rateLimit: true, rateLimitWindowMs: 60_000 });
    sandbox = opened.sandbox;
    // The token exchange was the first request of the window.
    const answers = await Promise.all(Array.from({ length: 119 }, () => call(sandbox!, 'GET', '/api/v1.1/credit-balance', { token: opened.token })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toContain('0');
    const throttled = await call(sandbox, 'GET', '/api/v1.1/sims', { token: opened.token });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    // Control routes are never limited, and advancing the sandbox clock opens a new window.
    expect((await call(sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: 60_000 } })).status).toBe(200);
    expect((await call(sandbox, 'GET', '/api/v1.1/sims', { token: opened.token })).status).toBe(200);
  });

  it('can be turned off', async () => {
    const opened = await open({ rateLimit: false });
    sandbox = opened.sandbox;
    for (let i = 0; i < 25; i++) {
      const res = await call(sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body: { portInNumber: '+61400111222' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('per-endpoint limits (spec part 8)', () => {
  const limited = useSandbox({ rateLimit: true });

  it('throttles each of the ten limited endpoints at its own limit, and nothing else with it', async () => {
    const endpoints = ENDPOINTS.filter((e) => e.limit !== undefined);
    expect(endpoints.map((e) => `${e.method} ${e.template}`).sort()).toEqual([
      'POST /api/v1.1/esim',
      'POST /api/v1.1/plans/purchase',
      'POST /api/v1.1/port-in/eligibility',
      'POST /api/v1.1/sims/{iccid}/renew-number',
      'POST /api/v1.1/sms',
      'POST /api/v1.1/subscriptions/{iccid}/cancel',
      'POST /api/v1.1/team-members',
      'POST /api/v1.1/top-up',
      'POST /api/v1.1/webhooks/{id}/test',
      'POST /api/v3/plans/purchase',
    ]);
    for (const endpoint of endpoints) {
      const name = `${endpoint.method} ${endpoint.template}`;
      await limited.control('POST', '/_sandbox/reset');
      // Ids that match nothing: a 404 counts toward the limit like any answer.
      const ids = await prepareIds(limited, false);
      const within = await Promise.all(Array.from({ length: endpoint.limit! }, () => callEndpoint(limited, endpoint, ids, limited.token)));
      expect(
        within.filter((r) => r.status === 429),
        name,
      ).toEqual([]);
      expect(
        within.map((r) => r.headers.get('x-ratelimit-limit')),
        name,
      ).toEqual(within.map(() => String(endpoint.limit)));
      const over = await callEndpoint(limited, endpoint, ids, limited.token);
      expect([over.status, over.body.error?.code], name).toEqual([429, 'RATE_LIMITED']);
      expect(Number(over.headers.get('retry-after')), name).toBeGreaterThanOrEqual(1);
      expect(over.headers.get('x-ratelimit-remaining'), name).toBeNull();
      const other = await limited.get('/api/v1.1/credit-balance');
      expect([other.status, other.headers.get('x-ratelimit-limit')], name).toEqual([200, '120']);
    }
  });
});
