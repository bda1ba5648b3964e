import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, open } from './helpers.js';

let sandbox: SandboxHandle;
let token: string;

beforeAll(async () => {
  ({ sandbox, token } = await open());
});
beforeEach(async () => {
  await call(sandbox, 'POST', '/_sandbox/reset');
});
afterAll(async () => {
  await sandbox.close();
});

const force = (body: unknown) => call(sandbox, 'POST', '/_sandbox/force', { body });

describe('forced answers', () => {
  it('forces an error envelope for the next N calls of a route template, then serves normally', async () => {
    const rule = await force({ method: 'GET', path: '/api/v1.1/sims/{iccid}/subscription', status: 503, code: 'INTERNAL_ERROR', times: 2 });
    expect(rule.status).toBe(201);
    const path = `/api/v1.1/sims/${sandbox.fixtures.physicalIccid}/subscription`;
    for (let i = 0; i < 2; i++) {
      const res = await call(sandbox, 'GET', path, { token });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
    }
    expect((await call(sandbox, 'GET', path, { token })).status).toBe(200);
  });

  it('forces an HTML body, a raw JSON body, and a 429 with Retry-After', async () => {
    await force({ method: 'GET', path: '/api/v1.1/credit-balance', html: '<html>Bad gateway</html>' });
    const html = await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token });
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(html.body).toBe('<html>Bad gateway</html>');

    await force({ method: 'GET', path: '/api/v1.1/credit-balance', status: 200, body: { success: true, data: { creditBalance: 'oops' } } });
    expect((await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token })).body.data.creditBalance).toBe('oops');

    await force({ method: '*', path: '/api/v1.1/credit-balance', status: 429 });
    const throttled = await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token });
    expect([throttled.status, throttled.body.error.code, throttled.headers.get('retry-after')]).toEqual([429, 'RATE_LIMITED', '1']);
  });

  it('forces a socket reset: the connection is destroyed without an answer', async () => {
    await force({ method: 'GET', path: '/api/v1.1/credit-balance', reset: true });
    await expect(fetch(`${sandbox.url}/api/v1.1/credit-balance`, { headers: { authorization: `Bearer ${token}` } })).rejects.toThrow();
    expect((await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token })).status).toBe(200);
  });

  it('forces a delay before the real answer', async () => {
    await force({ method: 'GET', path: '/api/v1.1/credit-balance', delayMs: 300 });
    const started = performance.now();
    const res = await call(sandbox, 'GET', '/api/v1.1/credit-balance', { token });
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('lists and clears pending rules, and rejects invalid ones with 400', async () => {
    await force({ path: '/api/v1.1/sims', status: 500 });
    expect((await call(sandbox, 'GET', '/_sandbox/force')).body.rules).toHaveLength(1);
    await call(sandbox, 'DELETE', '/_sandbox/force');
    expect((await call(sandbox, 'GET', '/_sandbox/force')).body.rules).toHaveLength(0);
    expect((await force({ path: 'no-slash' })).status).toBe(400);
  });
});

describe('request log, stats, time', () => {
  it('records partner requests with raw path, query, redacted credentials and parsed body', async () => {
    await call(sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: sandbox.key, secret: sandbox.secret } });
    await call(sandbox, 'GET', '/api/v1.1/sims?status=ACTIVE&search=a%20b', { token });
    await call(sandbox, 'GET', '/_sandbox/stats');
    const { requests } = (await call(sandbox, 'GET', '/_sandbox/requests')).body;
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/api/v1.1/auth/token', body: { key: '[REDACTED]', secret: '[REDACTED]' }, status: 200 });
    expect(requests[1]).toMatchObject({ method: 'GET', path: '/api/v1.1/sims', query: { status: 'ACTIVE', search: 'a b' }, body: null });
    expect(requests[1].headers.authorization).toBe('[REDACTED]');
    expect(JSON.stringify(requests)).not.toContain(token);
    expect(JSON.stringify(requests)).not.toContain(sandbox.secret);
    await call(sandbox, 'DELETE', '/_sandbox/requests');
    expect((await call(sandbox, 'GET', '/_sandbox/requests')).body.requests).toEqual([]);
  });

  it('advances and scales the clock', async () => {
    const before = Date.parse((await call(sandbox, 'GET', '/_sandbox/time')).body.now);
    const after = await call(sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: 600_000 } });
    expect(Date.parse(after.body.now) - before).toBeGreaterThanOrEqual(600_000);
    const scaled = await call(sandbox, 'POST', '/_sandbox/time', { body: { scale: 60 } });
    expect(scaled.body.scale).toBe(60);
    await new Promise((r) => setTimeout(r, 100));
    const later = Date.parse((await call(sandbox, 'GET', '/_sandbox/time')).body.now);
    expect(later - Date.parse(scaled.body.now)).toBeGreaterThanOrEqual(5000);
    await call(sandbox, 'POST', '/_sandbox/time', { body: { scale: 1 } });
    expect((await call(sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: -1 } })).status).toBe(400);
  });

  it('serves fixtures and resets state', async () => {
    const fixtures = (await call(sandbox, 'GET', '/_sandbox/fixtures')).body;
    expect(fixtures).toEqual(sandbox.fixtures);
    await call(sandbox, 'DELETE', `/api/v1.1/user-groups/${encodeURIComponent('Führung')}`, { token });
    expect((await call(sandbox, 'GET', '/_sandbox/stats')).body.counters['userGroups.delete']).toBe(1);
    await call(sandbox, 'POST', '/_sandbox/reset');
    expect((await call(sandbox, 'GET', '/_sandbox/stats')).body.counters).toEqual({});
    expect((await call(sandbox, 'DELETE', `/api/v1.1/user-groups/${encodeURIComponent('Führung')}`, { token })).status).toBe(200);
  });
});

describe('fault injection', () => {
  it('injects seeded 500s and socket resets at the configured rates, the same way for the same seed', async () => {
    const run = async (): Promise<string[]> => {
      const faulty = await startSandbox({ port: 0, rateLimit: false, faults: { errorRate: 0.3, resetRate: 0.2, seed: 9 } });
      const outcomes: string[] = [];
      try {
        for (let i = 0; i < 40; i++) {
          outcomes.push(
            await new Promise<string>((resolve) => {
              const req = httpRequest(`${faulty.url}/api/v1.1/port-in/eligibility`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
                res.resume();
                res.on('end', () => resolve(String(res.statusCode)));
              });
              req.on('error', () => resolve('reset'));
              req.end(JSON.stringify({ portInNumber: '+61400111222' }));
            }),
          );
        }
      } finally {
        await faulty.close();
      }
      return outcomes;
    };
    const first = await run();
    expect(first).toContain('500');
    expect(first).toContain('reset');
    expect(first).toContain('200');
    expect(await run()).toEqual(first);
  });

  it('adds latency', async () => {
    const slow = await startSandbox({ port: 0, faults: { latencyMs: 150 } });
    try {
      const started = performance.now();
      await fetch(`${slow.url}/api/v3/transactions/none`);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    } finally {
      await slow.close();
    }
  });
});
