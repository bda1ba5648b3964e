import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, open } from './helpers.js';

let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('rate limits', () => {
  it('counts a per-endpoint limit with X-RateLimit headers, then answers 429 with Retry-After only', async () => {
    const opened = await open({ rateLimit: true, rateLimitWindowMs: 1000 });
    sandbox = opened.sandbox;
    const body = { portInNumber: '+61400111222' };
    const answers = [];
    for (let i = 0; i < 21; i++) answers.push(await call(sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body }));
    expect(answers[0]?.status).toBe(200);
    expect(answers[0]?.headers.get('x-ratelimit-limit')).toBe('20');
    expect(answers[0]?.headers.get('x-ratelimit-remaining')).toBe('19');
    expect(answers[0]?.headers.get('x-ratelimit-reset')).toBe('1');
    expect(answers[19]?.headers.get('x-ratelimit-remaining')).toBe('0');
    const throttled = answers[20]!;
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('RATE_LIMITED');
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(throttled.headers.get('x-ratelimit-limit')).toBeNull();
    expect(throttled.headers.get('x-ratelimit-remaining')).toBeNull();

    // Other endpoints keep working (spec part 8 rule 3) ...
    const other = await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token: opened.token });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-limit')).toBe('120');
    // ... and the window reopens once it has passed.
    await new Promise((r) => setTimeout(r, 1050));
    expect((await call(sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body })).status).toBe(200);
  });

  it('applies the account-wide limit of 120 per window across endpoints', async () => {
    const opened = await open({ rateLimit: true, rateLimitWindowMs: 60_000 });
    sandbox = opened.sandbox;
    // The token exchange was the first request of the window.
    let last;
    for (let i = 0; i < 119; i++) last = await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token: opened.token });
    expect(last?.status).toBe(200);
    expect(last?.headers.get('x-ratelimit-remaining')).toBe('0');
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
