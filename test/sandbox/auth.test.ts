import { describe, expect, it } from 'vitest';
import { call, tokenFor, useSandbox } from './helpers.js';

const s = useSandbox({ tokenTtlSeconds: 120 });

describe('token exchange', () => {
  it('answers a snake_case token with expiry and meta.timezone', async () => {
    const res = await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: s.sandbox.key, secret: s.sandbox.secret } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.meta).toEqual({ timezone: 'UTC' });
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'token_type']);
    expect(data.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(data.token_type).toBe('Bearer');
    expect(data.expires_in).toBe(120);
    expect(data.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('answers 400 VALIDATION_ERROR for a missing or empty key or secret', async () => {
    for (const body of [{}, { key: s.sandbox.key }, { key: '', secret: s.sandbox.secret }, { key: s.sandbox.key, secret: '' }]) {
      const res = await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers 401 UNAUTHORIZED for wrong credentials, without echoing the secret', async () => {
    const res = await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: s.sandbox.key, secret: 'nope-not-it' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(JSON.stringify(res.body)).not.toContain('nope-not-it');
  });
});

describe('bearer check', () => {
  it('answers 401 for a missing, malformed or forged token', async () => {
    const forged = `${s.token.slice(0, -4)}AAAA`;
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      { authorization: `Bearer ${forged}` },
    ];
    for (const headers of variants) {
      const res = await call(s.sandbox, 'GET', '/api/v1.1/sims', { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('lets the transaction poll and the eligibility check through without a token', async () => {
    const poll = await call(s.sandbox, 'GET', '/api/v3/transactions/txn_unknown');
    expect(poll.status).toBe(404);
    expect(poll.body.error.code).toBe('NOT_FOUND');
    const eligibility = await call(s.sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body: { portInNumber: '+61400111222' } });
    expect(eligibility.status).toBe(200);
  });

  it('expires tokens on the sandbox clock', async () => {
    const short = await tokenFor(s.sandbox);
    expect((await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: short })).status).toBe(200);
    await call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: 121_000 } });
    const res = await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: short });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    s.token = await tokenFor(s.sandbox);
  });

  it('revokes one token or all through the control API', async () => {
    const a = await tokenFor(s.sandbox);
    const b = await tokenFor(s.sandbox);
    const one = await call(s.sandbox, 'POST', '/_sandbox/tokens/revoke', { body: { token: a } });
    expect(one.body).toEqual({ revoked: 1 });
    expect((await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: a })).status).toBe(401);
    expect((await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: b })).status).toBe(200);
    const all = await call(s.sandbox, 'POST', '/_sandbox/tokens/revoke', { body: {} });
    expect(all.body.revoked).toBeGreaterThanOrEqual(2);
    expect((await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: b })).status).toBe(401);
    s.token = await tokenFor(s.sandbox);
  });
});

describe('role tiers', () => {
  it('refuses SMS and port-in submission to the standard key with 403 FORBIDDEN, and serves it elsewhere', async () => {
    const standard = await tokenFor(s.sandbox, 'standard');
    const { phoneNumber, physicalIccid } = s.sandbox.fixtures;
    const sms = await call(s.sandbox, 'POST', '/api/v1.1/sms', {
      token: standard,
      body: { fromNumber: phoneNumber, toNumber: '+61400000001', text: 'hi' },
    });
    expect(sms.status).toBe(403);
    expect(sms.body.error.code).toBe('FORBIDDEN');
    const portIn = await call(s.sandbox, 'POST', '/api/v3/port-in', {
      token: standard,
      body: { portInNumber: '+61400111333', iccid: physicalIccid },
    });
    expect(portIn.status).toBe(403);
    expect(portIn.body.error.code).toBe('FORBIDDEN');
    expect((await call(s.sandbox, 'GET', '/api/v1.1/sims', { token: standard })).status).toBe(200);
  });
});
