import { request as httpRequest } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { installFakeClock, settleOnFakeClock } from '../helpers/clock.js';
import { call, open, useSandbox } from './helpers.js';

const s = useSandbox({}, { resetEach: true });

const force = (body: unknown) => call(s.sandbox, 'POST', '/_sandbox/force', { body });

describe('forced answers', () => {
  it('forces an error envelope for the next N calls of a route template, then serves normally', async () => {
    const rule = await force({ method: 'GET', path: '/api/v1.1/sims/{iccid}/subscription', status: 503, code: 'INTERNAL_ERROR', times: 2 });
    expect(rule.status).toBe(201);
    const path = `/api/v1.1/sims/${s.sandbox.fixtures.physicalIccid}/subscription`;
    for (let i = 0; i < 2; i++) {
      const res = await call(s.sandbox, 'GET', path, { token: s.token });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
    }
    expect((await call(s.sandbox, 'GET', path, { token: s.token })).status).toBe(200);
  });

  it('forces an HTML body, a raw JSON body, and a 429 with Retry-After', async () => {
    await force({ method: 'GET', path: '/api/v1.1/credit-balance', html: '<html>Bad gateway</html>' });
    const html = await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: s.token });
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(html.body).toBe('<html>Bad gateway</html>');

    await force({ method: 'GET', path: '/api/v1.1/credit-balance', status: 200, body: { success: true, data: { creditBalance: 'oops' } } });
    expect((await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: s.token })).body.data.creditBalance).toBe('oops');

    await force({ method: '*', path: '/api/v1.1/credit-balance', status: 429 });
    const throttled = await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: s.token });
    expect([throttled.status, throttled.body.error.code, throttled.headers.get('retry-after')]).toEqual([429, 'RATE_LIMITED', '1']);
  });

  it('forces a socket reset: the connection is destroyed without an answer', async () => {
    await force({ method: 'GET', path: '/api/v1.1/credit-balance', reset: true });
    await expect(fetch(`${s.sandbox.url}/api/v1.1/credit-balance`, { headers: { authorization: `Bearer ${s.token}` } })).rejects.toThrow();
    expect((await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: s.token })).status).toBe(200);
  });

  it('forces a delay before the real answer', async () => {
    // A sandbox of its own, started on the fake clock, so the delay is read on the clock it waits on.
    installFakeClock();
    const { sandbox, token } = await open();
    try {
      await call(sandbox, 'POST', '/_sandbox/force', { body: { method: 'GET', path: '/api/v1.1/credit-balance', delayMs: 300 } });
      const started = performance.now();
      const res = await settleOnFakeClock(call(sandbox, 'GET', '/api/v1.1/credit-balance', { token }));
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    } finally {
      await sandbox.close();
      vi.useRealTimers();
    }
  });

  it('lists and clears pending rules, and rejects invalid ones with 400', async () => {
    await force({ path: '/api/v1.1/sims', status: 500 });
    expect((await call(s.sandbox, 'GET', '/_sandbox/force')).body.rules).toHaveLength(1);
    await call(s.sandbox, 'DELETE', '/_sandbox/force');
    expect((await call(s.sandbox, 'GET', '/_sandbox/force')).body.rules).toHaveLength(0);
    expect((await force({ path: 'no-slash' })).status).toBe(400);
  });
});

describe('request log, stats, time', () => {
  it('records partner requests with raw path, query, redacted credentials and parsed body', async () => {
    await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: s.sandbox.key, secret: s.sandbox.secret } });
    await call(s.sandbox, 'GET', '/api/v1.1/sims?status=ACTIVE&search=a%20b', { token: s.token });
    await call(s.sandbox, 'GET', '/_sandbox/stats');
    const { requests } = (await call(s.sandbox, 'GET', '/_sandbox/requests')).body;
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: '/api/v1.1/auth/token',
      body: { key: '[REDACTED]', secret: '[REDACTED]' },
      status: 200,
    });
    expect(requests[1]).toMatchObject({ method: 'GET', path: '/api/v1.1/sims', query: { status: 'ACTIVE', search: 'a b' }, body: null });
    expect(requests[1].headers.authorization).toBe('[REDACTED]');
    expect(JSON.stringify(requests)).not.toContain(s.token);
    expect(JSON.stringify(requests)).not.toContain(s.sandbox.secret);
    await call(s.sandbox, 'DELETE', '/_sandbox/requests');
    expect((await call(s.sandbox, 'GET', '/_sandbox/requests')).body.requests).toEqual([]);
  });

  it('never shows webhook credentials or signing secrets in the request log, at any depth or in an unparsable body', async () => {
    const credentials = ['hook-bearer-tok', 'hook-user', 'hook-pass', 'hook-api-key'];
    const register = (operator: string, network: string, authentication: Record<string, string>) =>
      s.post('/api/v1.1/webhooks', { operator, network, eventType: 'voice', authentication });
    const created = await register('Telstra', 'Telstra 4G', { type: 'bearer', token: 'hook-bearer-tok' });
    await register('Optus', 'Optus 4G', { type: 'basic', username: 'hook-user', password: 'hook-pass' });
    await register('Optus', 'Optus 5G', { type: 'api_key', key: 'hook-api-key', headerName: 'X-Hook-Key' });
    await s.api('PUT', `/api/v1.1/webhooks/${created.body.data.id}`, { authentication: { type: 'bearer', token: 'hook-bearer-tok' } });
    await s.post('/api/v1.1/webhooks', `{"operator":"Telstra","authentication":{"token":"hook-bearer-tok"`);
    const { requests } = (await s.control('GET', '/_sandbox/requests')).body;
    expect(requests).toHaveLength(5);
    const logged = JSON.stringify(requests);
    for (const value of [...credentials, created.body.data.signingSecret]) expect(logged).not.toContain(value);
    expect(requests[2].body.authentication).toEqual({ type: 'api_key', key: '[REDACTED]', headerName: 'X-Hook-Key' });
    expect(requests[4].body).toMatch(/^\[not JSON: \d+ bytes\]$/);
  });

  it('advances and scales the clock', async () => {
    const before = Date.parse((await call(s.sandbox, 'GET', '/_sandbox/time')).body.now);
    const after = await call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: 600_000 } });
    expect(Date.parse(after.body.now) - before).toBeGreaterThanOrEqual(600_000);
    const scaled = await call(s.sandbox, 'POST', '/_sandbox/time', { body: { scale: 60 } });
    expect(scaled.body.scale).toBe(60);
    await new Promise((r) => setTimeout(r, 100));
    const later = Date.parse((await call(s.sandbox, 'GET', '/_sandbox/time')).body.now);
    expect(later - Date.parse(scaled.body.now)).toBeGreaterThanOrEqual(5000);
    await call(s.sandbox, 'POST', '/_sandbox/time', { body: { scale: 1 } });
    expect((await call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: -1 } })).status).toBe(400);
  });

  it('serves fixtures and resets state', async () => {
    const fixtures = (await call(s.sandbox, 'GET', '/_sandbox/fixtures')).body;
    expect(fixtures).toEqual(s.sandbox.fixtures);
    await call(s.sandbox, 'DELETE', `/api/v1.1/user-groups/${encodeURIComponent('Führung')}`, { token: s.token });
    expect((await call(s.sandbox, 'GET', '/_sandbox/stats')).body.counters['userGroups.delete']).toBe(1);
    await call(s.sandbox, 'POST', '/_sandbox/reset');
    expect((await call(s.sandbox, 'GET', '/_sandbox/stats')).body.counters).toEqual({});
    expect((await call(s.sandbox, 'DELETE', `/api/v1.1/user-groups/${encodeURIComponent('Führung')}`, { token: s.token })).status).toBe(200);
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
              const req = httpRequest(
                `${faulty.url}/api/v1.1/port-in/eligibility`,
                { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
                (res) => {
                  res.resume();
                  res.on('end', () => resolve(String(res.statusCode)));
                },
              );
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
    installFakeClock();
    const slow = await startSandbox({ port: 0, faults: { latencyMs: 150 } });
    try {
      const started = performance.now();
      await settleOnFakeClock(fetch(`${slow.url}/api/v3/transactions/none`));
      expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    } finally {
      await slow.close();
      vi.useRealTimers();
    }
  });
});
