import { describe, expect, it } from 'vitest';
import { NotFoundError, PartnerClient, PermissionDeniedError } from '../../src/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, tokenFor, useSandbox } from './helpers.js';

const s = useSandbox({}, { resetEach: true });

const setAccount = (body: unknown) => call(s.sandbox, 'POST', '/_sandbox/account', { body });

describe('account state: the plan lacks API access (spec part 5 rule 6)', () => {
  it('answers every authenticated call 403 FORBIDDEN, and the exchange too once the credentials are right', async () => {
    const token = await tokenFor(s.sandbox);
    const set = await setAccount({ apiAccess: false });
    expect(set.body).toEqual({ apiAccess: false, customerMissing: false });
    for (const [method, path] of [
      ['GET', '/api/v1.1/sims'],
      ['GET', '/api/v1.1/credit-balance'],
      ['POST', '/api/v1.1/webhooks'],
    ] as const) {
      const res = await call(s.sandbox, method, path, { token, body: method === 'POST' ? {} : undefined });
      expect([path, res.status, res.body.error.code]).toEqual([path, 403, 'FORBIDDEN']);
      expect(res.body.error.details).toBeUndefined();
    }
    const exchange = await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: s.sandbox.key, secret: s.sandbox.secret } });
    expect([exchange.status, exchange.body.error.code]).toEqual([403, 'FORBIDDEN']);
    // Wrong credentials and bad tokens stay 401: the account gate comes after the credential check.
    const wrong = await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: { key: s.sandbox.key, secret: 'nope' } });
    expect(wrong.status).toBe(401);
    expect((await call(s.sandbox, 'GET', '/api/v1.1/sims', { token: 'x.y.z' })).status).toBe(401);
    // The transaction poll and the eligibility check carry no bearer, so no account to gate.
    const eligibility = await call(s.sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body: { portInNumber: '+61400999888' } });
    expect(eligibility.status).toBe(200);

    await setAccount({ apiAccess: true });
    expect((await call(s.sandbox, 'GET', '/api/v1.1/sims', { token })).status).toBe(200);
  });

  it('is a sandbox option, restored by reset, and surfaces as PermissionDeniedError in the client', async () => {
    const sandbox = await startSandbox({ port: 0, account: { apiAccess: false } });
    const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, maxRetries: 0 });
    try {
      const error = await client.sims.list().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      await call(sandbox, 'POST', '/_sandbox/account', { body: { apiAccess: true } });
      expect((await client.sims.list({ pageSize: 1 })).data).toHaveLength(1);
      await call(sandbox, 'POST', '/_sandbox/reset');
      expect((await call(sandbox, 'GET', '/_sandbox/account')).body).toEqual({ apiAccess: false, customerMissing: false });
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});

describe('account state: the billing customer is missing', () => {
  it('answers GET /credit-balance 404 NOT_FOUND while other routes keep working', async () => {
    await setAccount({ customerMissing: true });
    const res = await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: s.token });
    expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await call(s.sandbox, 'GET', '/api/v1.1/sims?pageSize=1', { token: s.token })).status).toBe(200);
    await call(s.sandbox, 'POST', '/_sandbox/reset');
    expect((await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: s.token })).status).toBe(200);
  });

  it('surfaces as NotFoundError with code NOT_FOUND in the client', async () => {
    await setAccount({ customerMissing: true });
    const client = new PartnerClient({ baseUrl: s.sandbox.url, key: s.sandbox.key, secret: s.sandbox.secret, rateLimit: false });
    try {
      await expect(client.billing.retrieveCreditBalance()).rejects.toSatisfy((e: unknown) => e instanceof NotFoundError && e.code === 'NOT_FOUND');
    } finally {
      await client.close();
    }
  });
});

describe('POST /_sandbox/account', () => {
  it('refuses unknown members and non-boolean values, changing nothing', async () => {
    const typo = await setAccount({ apiAcess: false });
    expect(typo.status).toBe(400);
    expect(typo.body.issues).toEqual(['body: unknown field apiAcess (allowed: apiAccess, customerMissing)']);
    const wrongType = await setAccount({ apiAccess: 'no' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.issues[0]).toMatch(/^apiAccess: /);
    expect((await call(s.sandbox, 'GET', '/_sandbox/account')).body).toEqual({ apiAccess: true, customerMissing: false });
  });

  it('refuses an unknown account option at creation', async () => {
    await expect(startSandbox({ account: { apiAcces: false } as never })).rejects.toThrow(
      'unknown sandbox option account.apiAcces: did you mean account.apiAccess?',
    );
  });
});
