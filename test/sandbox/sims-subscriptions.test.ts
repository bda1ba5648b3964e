import { describe, expect, it } from 'vitest';
import { SIM } from './endpoints.js';
import { call, useSandbox } from './helpers.js';

const s = useSandbox();

const { get } = s;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('pagination and envelopes', () => {
  it('answers a page with meta totals and camelCase SIM objects', async () => {
    const res = await get('/api/v1.1/sims?page=2&pageSize=25');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 2, pageSize: 25, total: 300, totalPages: 12 });
    expect(res.body.data).toHaveLength(25);
    const sim = res.body.data[0];
    expect(Object.keys(sim).sort()).toEqual([...SIM].sort());
    expect(sim.iccid).toMatch(/^89\d{17,18}$/);
    expect(sim.phoneNumber).toMatch(/^\+[1-9]\d{6,14}$/);
    expect(sim.createdAt).toMatch(ISO_MS);
  });

  it('answers 400 VALIDATION_ERROR with details.validationErrors for out-of-range paging', async () => {
    for (const query of ['pageSize=101', 'pageSize=0', 'page=0', 'page=abc']) {
      const res = await get(`/api/v1.1/sims?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.validationErrors).toEqual([expect.any(String)]);
    }
    expect((await get('/api/v1.1/sims?pageSize=100')).body.data).toHaveLength(100);
  });

  it('answers unknown routes with a 404 NOT_FOUND envelope', async () => {
    const res = await get('/api/v1.1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });
});

describe('SIM list filters', () => {
  it('filters by status and assignedStatus, and rejects unknown values', async () => {
    const inactive = await get('/api/v1.1/sims?status=INACTIVE&pageSize=100');
    expect(inactive.body.data.length).toBeGreaterThan(0);
    expect(inactive.body.data.every((s: any) => s.status === 'INACTIVE')).toBe(true);
    const unassigned = await get('/api/v1.1/sims?assignedStatus=UNASSIGNED&pageSize=100');
    expect(unassigned.body.data.every((s: any) => s.assignedStatus === 'UNASSIGNED' && s.assignedTo === null)).toBe(true);
    const bad = await get('/api/v1.1/sims?status=active');
    expect(bad.status).toBe(400);
    expect((await get('/api/v1.1/sims?assignedStatus=YES')).status).toBe(400);
  });

  it('filters by assignedTo email and free-text search over several fields', async () => {
    const first = (await get('/api/v1.1/sims?pageSize=1')).body.data[0];
    const mine = await get(`/api/v1.1/sims?assignedTo=${encodeURIComponent(first.assignedTo.email)}&pageSize=100`);
    expect(mine.body.data.length).toBeGreaterThan(0);
    expect(mine.body.data.every((s: any) => s.assignedTo.email === first.assignedTo.email)).toBe(true);
    for (const needle of [first.iccid, first.phoneNumber, first.device.imei, first.device.model, first.group, 'vodafone']) {
      const res = await get(`/api/v1.1/sims?search=${encodeURIComponent(needle)}&pageSize=100`);
      expect(res.body.meta.total, needle).toBeGreaterThan(0);
    }
    const byIccid = await get(`/api/v1.1/sims?search=${first.iccid}`);
    expect(byIccid.body.data.map((s: any) => s.iccid)).toEqual([first.iccid]);
    expect((await get('/api/v1.1/sims?search=zz-no-such-thing')).body.meta.total).toBe(0);
  });
});

describe('subscriptions', () => {
  it('widens the default ACTIVE filter to PENDING and CANCEL_SCHEDULED', async () => {
    const res = await get('/api/v1.1/subscriptions?pageSize=100');
    const explicit = await get('/api/v1.1/subscriptions?status=ACTIVE&pageSize=100');
    const statuses = new Set<string>();
    for (let page = 1; page <= res.body.meta.totalPages; page++) {
      for (const s of (await get(`/api/v1.1/subscriptions?pageSize=100&page=${page}`)).body.data) statuses.add(s.status);
    }
    expect([...statuses].sort()).toEqual(['ACTIVE', 'CANCEL_SCHEDULED', 'PENDING']);
    expect(explicit.body.meta.total).toBe(res.body.meta.total);
    const item = res.body.data[0];
    expect(Object.keys(item).sort()).toEqual(['autoTopUp', 'endDate', 'iccid', 'network', 'operator', 'productName', 'startDate', 'status']);
  });

  it('matches other filters exactly and rejects unknown ones', async () => {
    for (const status of ['PENDING', 'SCHEDULED', 'CANCELLED']) {
      const res = await get(`/api/v1.1/subscriptions?status=${status}&pageSize=100`);
      expect(res.body.meta.total, status).toBeGreaterThan(0);
      expect(res.body.data.every((s: any) => s.status === status)).toBe(true);
    }
    const bad = await get('/api/v1.1/subscriptions?status=CANCEL_SCHEDULED');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('reads a SIM subscription with detail fields, falling back to the newest SCHEDULED one', async () => {
    const { physicalIccid, scheduledOnlyIccid, noSubscriptionIccid } = s.sandbox.fixtures;
    const serving = await get(`/api/v1.1/sims/${physicalIccid}/subscription`);
    expect(serving.status).toBe(200);
    expect(serving.body.data).toMatchObject({ iccid: physicalIccid, status: 'ACTIVE', scheduledDate: null });
    expect(serving.body.data.planCode).toEqual(expect.any(String));
    expect(serving.body.data.orderId).toEqual(expect.any(String));

    const fallback = await get(`/api/v1.1/sims/${scheduledOnlyIccid}/subscription`);
    expect(fallback.status).toBe(200);
    expect(fallback.body.data.status).toBe('SCHEDULED');
    // Through the sandbox's state: the API's subscription list shows neither `orderId` nor
    // `createdAt`, so which of the line's two SCHEDULED subscriptions is the newest is not visible
    // through it (spec part 2), and that choice is what this test holds.
    const scheduled = s.sandbox.ctx.state.subscriptions.filter((s) => s.iccid === scheduledOnlyIccid);
    const newest = scheduled.reduce((a, b) => (a.createdAt > b.createdAt ? a : b));
    expect(scheduled).toHaveLength(2);
    expect(fallback.body.data.orderId).toBe(newest.orderId);

    const none = await get(`/api/v1.1/sims/${noSubscriptionIccid}/subscription`);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
    expect((await get('/api/v1.1/sims/8900000000000000000/subscription')).body.error.code).toBe('SIM_NOT_FOUND');
  });

  it('cancels with 201 CANCEL_SCHEDULED at the period end, then answers 409 CONFLICT', async () => {
    const iccid = s.sandbox.fixtures.activeSubscriptionIccid;
    const before = await get(`/api/v1.1/sims/${iccid}/subscription`);
    const first = await call(s.sandbox, 'POST', `/api/v1.1/subscriptions/${iccid}/cancel`, { token: s.token });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ iccid, status: 'CANCEL_SCHEDULED', cancelledDate: before.body.data.endDate });
    const again = await call(s.sandbox, 'POST', `/api/v1.1/subscriptions/${iccid}/cancel`, { token: s.token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    const missingSim = await call(s.sandbox, 'POST', '/api/v1.1/subscriptions/8900000000000000000/cancel', { token: s.token });
    expect(missingSim.body.error.code).toBe('SIM_NOT_FOUND');
    const noSub = await call(s.sandbox, 'POST', `/api/v1.1/subscriptions/${s.sandbox.fixtures.noSubscriptionIccid}/cancel`, { token: s.token });
    expect(noSub.status).toBe(404);
    expect(noSub.body.error.code).toBe('SUBSCRIPTION_NOT_FOUND');
  });
});
