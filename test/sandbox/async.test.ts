import { describe, expect, it } from 'vitest';
import { call, open, useSandbox } from './helpers.js';

const s = useSandbox({ transactionDelayMs: 1000 });

const poll = (id: string) => call(s.sandbox, 'GET', `/api/v3/transactions/${id}`);
const advance = (ms: number) => call(s.sandbox, 'POST', '/_sandbox/time', { body: { advanceMs: ms } });

describe('async transactions', () => {
  it('moves a v3 purchase PENDING → PROCESSING → COMPLETED on the sandbox clock', async () => {
    const accepted = await call(s.sandbox, 'POST', '/api/v3/plans/purchase', {
      token: s.token,
      body: { iccid: s.sandbox.fixtures.physicalIccid, planId: 'Business 5GB' },
    });
    expect(accepted.status).toBe(202);
    const { transactionId, statusEndpoint, status } = accepted.body.data;
    expect(statusEndpoint).toBe(`/api/v3/transactions/${transactionId}`);
    expect(status).toBe('PENDING');

    const pending = await poll(transactionId);
    expect(pending.status).toBe(200);
    expect(pending.body.data).toMatchObject({ transactionId, status: 'PENDING', processingStartedAt: null, scheduledDate: null });
    await advance(1000);
    const processing = await poll(transactionId);
    expect(processing.body.data.status).toBe('PROCESSING');
    expect(processing.body.data.processingStartedAt).toEqual(expect.any(String));
    await advance(1000);
    const done = await poll(transactionId);
    expect(done.body.data).toMatchObject({ status: 'COMPLETED', result: { iccid: s.sandbox.fixtures.physicalIccid, planId: 'Business 5GB' } });
    expect(done.body.data).not.toHaveProperty('errorCode');
    expect(done.body.data.processingCompletedAt).toEqual(expect.any(String));
    await advance(5);
    const later = await poll(transactionId);
    expect(later.body.data.timestamp).not.toBe(done.body.data.timestamp);
    expect(later.body.data.updatedAt).toBe(done.body.data.updatedAt);
  });

  it('ends FAILED with HTTP 200 and an errorCode for an unknown ICCID or an unpriced plan', async () => {
    const unknown = await call(s.sandbox, 'POST', '/api/v3/plans/purchase', {
      token: s.token,
      body: { iccid: '8900000000000000000', planId: 'Business 5GB' },
    });
    const unpriced = await call(s.sandbox, 'POST', '/api/v3/plans/purchase', {
      token: s.token,
      body: { iccid: s.sandbox.fixtures.physicalIccid, planId: s.sandbox.fixtures.unpricedPlanId },
    });
    await advance(2000);
    const a = await poll(unknown.body.data.transactionId);
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ status: 'FAILED', errorCode: 'SIM_NOT_FOUND', error: expect.any(String) });
    expect(a.body.data).not.toHaveProperty('result');
    const b = await poll(unpriced.body.data.transactionId);
    expect(b.body.data).toMatchObject({ status: 'FAILED', errorCode: 'PRICING_NOT_CONFIGURED' });
  });

  it('provisions an eSIM (202) whose result carries mdn, iccid and qrCode, and the new SIM is listed', async () => {
    const accepted = await call(s.sandbox, 'POST', '/api/v1.1/esim', { token: s.token, body: { planId: 'Travel eSIM 10GB' } });
    expect(accepted.status).toBe(202);
    await advance(2000);
    const done = await poll(accepted.body.data.transactionId);
    expect(done.body.data.status).toBe('COMPLETED');
    const { mdn, iccid, qrCode } = done.body.data.result;
    expect(mdn).toMatch(/^\+61\d{9}$/);
    expect(iccid).toMatch(/^89\d{17,18}$/);
    expect(qrCode).toMatch(/^LPA:/);
    const qr = await call(s.sandbox, 'GET', `/api/v1.1/esim/${iccid}/qr`, { token: s.token });
    expect(qr.body.data.activationCode).toBe(qrCode);
  });

  it('tops up with 201 and credits the balance once completed', async () => {
    const before = (await call(s.sandbox, 'GET', '/api/v1.1/credit-balance', { token: s.token })).body.data.creditBalance[1];
    const accepted = await call(s.sandbox, 'POST', '/api/v1.1/top-up', { token: s.token, body: { amount: 25, currency: 'usd' } });
    expect(accepted.status).toBe(201);
    expect(accepted.body.data.statusEndpoint).toMatch(/^\/api\/v3\/transactions\//);
    await advance(2000);
    expect((await poll(accepted.body.data.transactionId)).body.data.result).toEqual({ currency: 'usd', amount: 25, balance: before.amount + 25 });
    const failed = await call(s.sandbox, 'POST', '/api/v1.1/top-up', { token: s.token, body: { amount: 5, iccid: '8900000000000000000' } });
    await advance(2000);
    expect((await poll(failed.body.data.transactionId)).body.data.errorCode).toBe('SIM_NOT_FOUND');
    expect((await call(s.sandbox, 'POST', '/api/v1.1/top-up', { token: s.token, body: { amount: '1' } })).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers v3 port-in outside the envelope, errors still in the error envelope', async () => {
    const accepted = await call(s.sandbox, 'POST', '/api/v3/port-in', {
      token: s.token,
      body: { portInNumber: '+61400222333', iccid: s.sandbox.fixtures.physicalIccid },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({
      transactionId: expect.any(String),
      statusEndpoint: `/api/v3/transactions/${accepted.body.transactionId}`,
      status: 'PENDING',
    });
    await advance(2000);
    const done = await poll(accepted.body.transactionId);
    expect(done.body.data.result).toMatchObject({ portInNumber: '+61400222333', status: 'PENDING' });
    const listed = await call(s.sandbox, 'GET', '/api/v1.1/port-ins?status=PENDING&pageSize=100', { token: s.token });
    expect(listed.body.data.some((p: any) => p.portInNumber === '+61400222333')).toBe(true);
    const missing = await call(s.sandbox, 'POST', '/api/v3/port-in', { token: s.token, body: { iccid: s.sandbox.fixtures.physicalIccid } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'MISSING_FIELDS' } });
  });

  it('completes on its own when the clock is scaled: minute-long steps take milliseconds', async () => {
    const fast = await open({ transactionDelayMs: 60_000, timeScale: 1000 });
    try {
      const accepted = await call(fast.sandbox, 'POST', '/api/v1.1/esim', { token: fast.token, body: {} });
      let status = 'PENDING';
      for (let i = 0; i < 50 && status !== 'COMPLETED'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await call(fast.sandbox, 'GET', `/api/v3/transactions/${accepted.body.data.transactionId}`)).body.data.status;
      }
      expect(status).toBe('COMPLETED');
    } finally {
      await fast.sandbox.close();
    }
  });
});
