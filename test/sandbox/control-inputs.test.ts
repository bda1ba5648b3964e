import { describe, expect, it } from 'vitest';
import { createSandbox, startSandbox } from '../../src/sandbox/index.js';
import { call, tokenFor, useSandbox } from './helpers.js';

const s = useSandbox({}, { resetEach: true });

/** Every control route that takes a body, with one valid body each. */
const CONTROL_POSTS: ReadonlyArray<[string, unknown]> = [
  ['/_sandbox/force', { path: '/api/v1.1/sims', status: 503 }],
  ['/_sandbox/time', { advanceMs: 1 }],
  ['/_sandbox/tokens/revoke', {}],
  ['/_sandbox/reset', {}],
  ['/_sandbox/events/sms', { operator: 'Telstra', network: 'Telstra 4G' }],
  ['/_sandbox/events/voice', { operator: 'Telstra', network: 'Telstra 4G' }],
  ['/_sandbox/voice-quality/webhooks', { url: 'https://vq.example/hook' }],
  ['/_sandbox/voice-quality/tests', { iccid: '' }],
  ['/_sandbox/voice-stream', { operator: 'Telstra', network: 'Telstra 4G', durationMs: 0 }],
];

/** The sandbox still answers on every kind of route: partner API, token exchange, control, reset. */
async function stillServes(): Promise<void> {
  expect((await call(s.sandbox, 'GET', '/_sandbox/time')).status).toBe(200);
  expect((await call(s.sandbox, 'GET', '/_sandbox/stats')).status).toBe(200);
  const token = await tokenFor(s.sandbox);
  const sims = await call(s.sandbox, 'GET', '/api/v1.1/sims?pageSize=1', { token });
  expect(sims.status).toBe(200);
  expect(sims.body.data[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect((await call(s.sandbox, 'POST', '/_sandbox/reset')).status).toBe(200);
}

describe('POST /_sandbox/time is checked, and the clock cannot be bricked', () => {
  it('answers 400 naming advanceMs for { advanceMs: 1e16 }, and every route keeps working', async () => {
    const res = await call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: 1e16 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid body');
    expect(res.body.issues).toEqual([expect.stringMatching(/^advanceMs: /)]);
    await stillServes();
  });

  it('refuses a jump past 9999-12-31, accepts one up to it, and every timestamp stays valid there', async () => {
    const now = Date.parse((await call(s.sandbox, 'GET', '/_sandbox/time')).body.now);
    const room = Date.UTC(9999, 11, 31, 23, 59, 59, 999) - now;
    const jumps = Math.ceil((room - 60_000) / 3e12);
    for (let i = 0; i < jumps; i++) {
      const step = Math.min(3e12, room - 60_000 - i * 3e12);
      expect((await call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: step } })).status).toBe(200);
    }
    const past = await call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: 120_000 } });
    expect(past.status).toBe(400);
    expect(past.body.issues[0]).toMatch(/^advanceMs: must be at most \d+ \(the sandbox clock stops at 9999-12-31\)$/);
    expect((await call(s.sandbox, 'GET', '/_sandbox/time')).body.now).toMatch(/^9999-12-31T23:5/);
    const token = await tokenFor(s.sandbox);
    expect((await call(s.sandbox, 'GET', '/api/v1.1/sims?pageSize=1', { token })).status).toBe(200);
    await stillServes();
  });

  it('refuses scales that are not finite, not positive or above 1e6', async () => {
    for (const scale of [0, -1, 1e300, '10', null]) {
      const res = await call(s.sandbox, 'POST', '/_sandbox/time', { body: { scale } });
      expect(res.status, String(scale)).toBe(400);
      expect(res.body.issues[0]).toMatch(/^scale: /);
    }
    const big = await call(s.sandbox, 'POST', '/_sandbox/time', { body: { scale: 1e6 } });
    expect(big.body.scale).toBe(1e6);
    expect((await call(s.sandbox, 'POST', '/_sandbox/time', { body: { scale: 1 } })).status).toBe(200);
    await stillServes();
  });

  it('keeps the in-process clock within range too', async () => {
    const sandbox = createSandbox({ now: '9999-12-31T00:00:00.000Z' });
    const time = async (method: string, body?: unknown): Promise<{ status: number; body: { now?: string; issues?: string[] } }> => {
      const res = await sandbox.handler(
        new Request('http://sandbox.test/_sandbox/time', {
          method,
          ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        }),
      );
      return { status: res.status, body: (await res.json()) as { now?: string; issues?: string[] } };
    };
    expect(() => sandbox.advanceTime(1e16)).toThrow(RangeError);
    expect((await time('POST', { advanceMs: 3_155_760_000_000 })).status).toBe(400);
    expect((await time('POST', { scale: 1e300 })).status).toBe(400);
    expect((await time('GET')).body.now).toMatch(/^9999-12-31T/);
    await sandbox.close();
  });

  it('refuses out-of-range options at creation with a RangeError naming them', () => {
    expect(() => createSandbox({ timeScale: 1e300 })).toThrow(/timeScale/);
    expect(() => createSandbox({ now: 1e16 })).toThrow(/now/);
    expect(() => createSandbox({ simCount: 1e9 })).toThrow(/simCount/);
    expect(() => createSandbox({ limits: { maxBodyBytes: -1 } })).toThrow(/limits.maxBodyBytes/);
    expect(() => createSandbox({ limits: { maxBodyByte: 1 } as never })).toThrow(/unknown sandbox option limits.maxBodyByte/);
  });
});

describe('every control body is checked', () => {
  it('answers 400 { error, issues } for bodies that are not objects, on every control route, and stays up', async () => {
    for (const [path] of CONTROL_POSTS) {
      for (const body of ['[]', 'null', '"x"', '1e308', 'true']) {
        const res = await call(s.sandbox, 'POST', path, { body });
        expect([path, body, res.status, res.body.error]).toEqual([path, body, 400, 'invalid body']);
      }
    }
    await stillServes();
  });

  it('refuses unknown members on every control route, naming them and the allowed ones', async () => {
    for (const [path, valid] of CONTROL_POSTS) {
      const res = await call(s.sandbox, 'POST', path, { body: { ...(valid as object), stauts: 1 } });
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.issues, path).toContainEqual(expect.stringMatching(/^body: unknown field stauts \(allowed: .+\)$/));
    }
    const force = await call(s.sandbox, 'POST', '/_sandbox/force', { body: { path: '/api/v1.1/sims', stauts: 503 } });
    expect(force.body.issues).toEqual([
      'body: unknown field stauts (allowed: method, path, status, code, message, details, body, html, headers, delayMs, reset, resetAfter, times)',
    ]);
    expect((await call(s.sandbox, 'GET', '/_sandbox/force')).body.rules).toEqual([]);
    await stillServes();
  });

  it('accepts the valid body of every control route', async () => {
    for (const [path, valid] of CONTROL_POSTS) {
      const res = await call(s.sandbox, 'POST', path, { body: valid });
      if (path === '/_sandbox/voice-quality/tests') expect(res.status).toBe(400);
      else expect([path, res.status < 300]).toEqual([path, true]);
    }
  });

  it('refuses forced answers that could not be sent: 1xx, 204, 205, 304, and invalid header names or values', async () => {
    for (const status of [101, 204, 205, 304]) {
      const res = await call(s.sandbox, 'POST', '/_sandbox/force', { body: { path: '/api/v1.1/sims', status } });
      expect([status, res.status]).toEqual([status, 400]);
    }
    for (const headers of [{ 'bad header': 'x' }, { 'x-ok': 'line\nbreak' }]) {
      const res = await call(s.sandbox, 'POST', '/_sandbox/force', { body: { path: '/api/v1.1/sims', headers } });
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual(['headers: each name must be an HTTP token and each value free of control characters']);
    }
    expect((await call(s.sandbox, 'GET', '/_sandbox/force')).body.rules).toEqual([]);
    await stillServes();
  });
});

describe('a separate sandbox per hostile run', () => {
  it('survives a burst of hostile control calls and still resets', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      const hostile: unknown[] = [
        { advanceMs: -1 },
        { advanceMs: Number.MAX_VALUE },
        { scale: Number.MIN_VALUE / 2 },
        { token: '' },
        { __proto__: { x: 1 } },
      ];
      for (const body of hostile) {
        for (const path of ['/_sandbox/time', '/_sandbox/tokens/revoke', '/_sandbox/reset']) {
          const res = await call(sandbox, 'POST', path, { body });
          expect(res.status, `${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        }
      }
      expect((await call(sandbox, 'POST', '/_sandbox/reset')).body).toEqual({ reset: true });
      expect((await call(sandbox, 'GET', '/api/v1.1/sims', { token: await tokenFor(sandbox) })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});
