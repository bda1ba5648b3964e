import { describe, expect, it } from 'vitest';
import { call, useSandbox } from './helpers.js';

const s = useSandbox();

const { get, post } = s;

describe('plans', () => {
  it('reads a plan by its display name, with tieredPricing only on PAY_AS_YOU_GO', async () => {
    const flat = await get(`/api/v1.1/plans/${encodeURIComponent('Business 5GB')}`);
    expect(flat.status).toBe(200);
    expect(flat.body.data).toMatchObject({ productId: 'Business 5GB', planType: 'FLAT_RATE', currency: 'aud', data: { value: 5, unit: 'GB' } });
    expect(flat.body.data).not.toHaveProperty('tieredPricing');
    expect(flat.body.data).not.toHaveProperty('pricingConfigured');
    expect(flat.body.data).not.toHaveProperty('productName');
    const payg = await get(`/api/v1.1/plans/${encodeURIComponent('Data Pool PAYG')}`);
    expect(payg.body.data.planType).toBe('PAY_AS_YOU_GO');
    expect(payg.body.data.tieredPricing).toEqual(expect.any(Object));
    const volume = await get(`/api/v1.1/plans/${encodeURIComponent('Unlimited 5G')}`);
    expect(volume.body.data.volumeTierPricing).toEqual(expect.any(Object));
    const missing = await get('/api/v1.1/plans/Nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('PLAN_NOT_FOUND');
  });

  it('purchases synchronously on v1.1 and refuses unknown, unpriced or incomplete requests', async () => {
    const { physicalIccid, unpricedPlanId } = s.sandbox.fixtures;
    const ok = await post('/api/v1.1/plans/purchase', { iccid: physicalIccid, planId: 'Business 5GB' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      iccid: physicalIccid,
      planId: 'Business 5GB',
      status: 'COMPLETED',
      orderId: expect.stringMatching(/^ord_/),
    });
    const order = await get(`/api/v1.1/orders/${ok.body.data.orderId}`);
    expect(order.body.data).toEqual(ok.body.data);
    expect((await post('/api/v1.1/plans/purchase', { iccid: physicalIccid })).body.error.code).toBe('MISSING_FIELDS');
    expect((await post('/api/v1.1/plans/purchase', { iccid: '8900', planId: 'Business 5GB' })).body.error.code).toBe('SIM_NOT_FOUND');
    expect((await post('/api/v1.1/plans/purchase', { iccid: physicalIccid, planId: 'Nope' })).body.error.code).toBe('PLAN_NOT_FOUND');
    const unpriced = await post('/api/v1.1/plans/purchase', { iccid: physicalIccid, planId: unpricedPlanId });
    expect(unpriced.status).toBe(400);
    expect(unpriced.body.error.code).toBe('PRICING_NOT_CONFIGURED');
  });
});

describe('eSIM QR, orders, credit balance, users', () => {
  it('answers the activation object for an eSIM, null activationCode when never persisted', async () => {
    const { esimIccid, esimWithoutActivationCodeIccid, physicalIccid } = s.sandbox.fixtures;
    const res = await get(`/api/v1.1/esim/${esimIccid}/qr`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      iccid: esimIccid,
      qrCodeUrl: expect.stringMatching(/^https:\/\//),
      activationCode: expect.stringMatching(/^LPA:/),
    });
    expect((await get(`/api/v1.1/esim/${esimWithoutActivationCodeIccid}/qr`)).body.data.activationCode).toBeNull();
    const physical = await get(`/api/v1.1/esim/${physicalIccid}/qr`);
    expect(physical.status).toBe(400);
    expect(physical.body.error.code).toBe('VALIDATION_ERROR');
    const missing = await get('/api/v1.1/esim/8900000000000000000/qr');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('SIM_NOT_FOUND');
  });

  it('answers orders by id, 404 NOT_FOUND otherwise', async () => {
    expect((await get(`/api/v1.1/orders/${s.sandbox.fixtures.orderId}`)).body.data.orderId).toBe(s.sandbox.fixtures.orderId);
    const missing = await get('/api/v1.1/orders/ord_missing');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('answers the credit balance in two currencies and pages end users', async () => {
    const balance = await get('/api/v1.1/credit-balance');
    expect(balance.body.data.creditBalance.map((b: any) => b.currency)).toEqual(['aud', 'usd']);
    const users = await get('/api/v1.1/users?pageSize=10');
    expect(users.body.meta).toMatchObject({ page: 1, pageSize: 10, total: 48, totalPages: 5 });
    expect(users.body.data[0]).toEqual({
      email: expect.any(String),
      name: expect.any(String),
      department: expect.any(String),
      createdAt: expect.any(String),
    });
  });
});

describe('port-ins', () => {
  it('lists port-ins and filters by each status', async () => {
    for (const status of ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED']) {
      const res = await get(`/api/v1.1/port-ins?status=${status}`);
      expect(res.body.meta.total, status).toBeGreaterThan(0);
      expect(res.body.data.every((p: any) => p.status === status)).toBe(true);
      expect(Object.keys(res.body.data[0]).sort()).toEqual(['iccid', 'portInNumber', 'status', 'submittedAt']);
    }
    expect((await get('/api/v1.1/port-ins?status=DONE')).status).toBe(400);
  });

  it('checks eligibility without a bearer', async () => {
    const check = (portInNumber?: string) =>
      call(s.sandbox, 'POST', '/api/v1.1/port-in/eligibility', { body: portInNumber === undefined ? {} : { portInNumber } });
    expect((await check('+61400111222')).body.data).toEqual({ portInNumber: '+61400111222', eligible: true });
    expect((await check(s.sandbox.fixtures.phoneNumber)).body.data).toMatchObject({ eligible: false, reason: 'NUMBER_ALREADY_ON_ACCOUNT' });
    expect((await check('+61400110000')).body.data).toMatchObject({ eligible: false, reason: 'NUMBER_NOT_PORTABLE' });
    expect((await check()).body.error.code).toBe('MISSING_FIELDS');
    expect((await check('0400111222')).body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('team members', () => {
  it('lists members with departments only on Standard Admin rows', async () => {
    const res = await get('/api/v1.1/team-members');
    const rows: any[] = res.body.data;
    expect(rows.some((r) => r.role === 'Admin')).toBe(true);
    for (const row of rows) {
      if (row.role === 'Standard Admin') expect(row.departments).toEqual(expect.any(Array));
      else expect(row).not.toHaveProperty('departments');
      expect(row).not.toHaveProperty('invitedAt');
    }
  });

  it('reads one member with invitedAt, including an email with +, and 404 ADMIN_NOT_FOUND otherwise', async () => {
    const email = s.sandbox.fixtures.plusTeamMemberEmail;
    const res = await get(`/api/v1.1/team-members/${encodeURIComponent(email)}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ name: expect.any(String), email, role: 'Admin', status: 'active', invitedAt: expect.any(String) });
    const missing = await get('/api/v1.1/team-members/nobody%40acme.example');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('ADMIN_NOT_FOUND');
  });

  it('creates a member with 201 and answers each refusal with its code', async () => {
    const created = await post('/api/v1.1/team-members', {
      name: 'New One',
      email: 'new.one@acme.example',
      role: 'Standard Admin',
      departments: ['Sales'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ email: 'new.one@acme.example', role: 'Standard Admin', status: 'invited' });
    const again = await post('/api/v1.1/team-members', { name: 'New One', email: 'new.one@acme.example', role: 'Admin' });
    expect([again.status, again.body.error.code]).toEqual([409, 'ADMIN_ALREADY_EXISTS']);
    const role = await post('/api/v1.1/team-members', { name: 'X', email: 'x@acme.example', role: 'Overlord' });
    expect([role.status, role.body.error.code]).toEqual([422, 'INVALID_ROLE']);
    const dept = await post('/api/v1.1/team-members', { name: 'X', email: 'x@acme.example', role: 'Standard Admin', departments: ['Moon'] });
    expect([dept.status, dept.body.error.code]).toEqual([422, 'INVALID_DEPARTMENT']);
    const missing = await post('/api/v1.1/team-members', { email: 'x@acme.example' });
    expect([missing.status, missing.body.error.code]).toEqual([400, 'MISSING_FIELDS']);
  });
});

describe('groups and devices', () => {
  it('reads SIM groups by exact, case-sensitive name', async () => {
    expect((await get('/api/v1.1/sim-groups/Engineering')).body.data.dataQuota).toBe(1024);
    expect((await get('/api/v1.1/sim-groups/engineering')).body.data.dataQuota).toBe(10);
    const missing = await get('/api/v1.1/sim-groups/ENGINEERING');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'SIM_GROUP_NOT_FOUND']);
  });

  it('soft-deletes a user group once, then answers 404 USER_GROUP_NOT_FOUND', async () => {
    const name = encodeURIComponent('Remote/Contractors');
    const first = await call(s.sandbox, 'DELETE', `/api/v1.1/user-groups/${name}`, { token: s.token });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ name: 'Remote/Contractors', status: 'DELETED' });
    const again = await call(s.sandbox, 'DELETE', `/api/v1.1/user-groups/${name}`, { token: s.token });
    expect([again.status, again.body.error.code]).toEqual([404, 'USER_GROUP_NOT_FOUND']);
  });

  it('assigns a device to an end user and refuses team members, strangers and taken devices', async () => {
    const { unassignedImei, assignedImei, endUserEmail, plusEndUserEmail, adminEmail } = s.sandbox.fixtures;
    const assign = (imei: string, body: unknown) => post(`/api/v1.1/devices/${imei}/assign`, body);
    const ok = await assign(unassignedImei, { email: plusEndUserEmail });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ imei: unassignedImei, assignedTo: { name: 'Fleet Operations', email: plusEndUserEmail } });
    const taken = await assign(unassignedImei, { email: endUserEmail });
    // spec part 7's 409 row: "device already assigned" is CONFLICT.
    expect([taken.status, taken.body.error.code]).toEqual([409, 'CONFLICT']);
    const again = await assign(unassignedImei, { email: plusEndUserEmail });
    expect(again.body.data.assignedTo.email).toBe(plusEndUserEmail);
    expect((await assign(assignedImei, { email: adminEmail })).body.error.code).toBe('USER_NOT_FOUND');
    expect((await assign(unassignedImei, { email: 'ghost@acme.example' })).body.error.code).toBe('USER_NOT_FOUND');
    const unknown = await assign('000000000000000', { email: endUserEmail });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'DEVICE_NOT_FOUND']);
    expect((await assign(unassignedImei, {})).body.error.code).toBe('MISSING_FIELDS');
  });
});

describe('messaging and numbers', () => {
  it('sends SMS with 201 and applies every refusal rule', async () => {
    const { phoneNumber, noOutboundSmsNumber } = s.sandbox.fixtures;
    const send = (body: unknown) => post('/api/v1.1/sms', body);
    const ok = await send({ fromNumber: phoneNumber, toNumber: '+14155550100', text: 'hello' });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toEqual({ message: expect.any(String) });
    expect((await send({ fromNumber: phoneNumber, text: 'x' })).body.error.code).toBe('MISSING_FIELDS');
    const badTo = await send({ fromNumber: phoneNumber, toNumber: '0412345678', text: 'x' });
    expect([badTo.status, badTo.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await send({ fromNumber: '61412345678', toNumber: '+14155550100', text: 'x' })).body.error.code).toBe('VALIDATION_ERROR');
    const notOurs = await send({ fromNumber: '+61499999999', toNumber: '+14155550100', text: 'x' });
    expect(notOurs.status).toBe(404);
    const unsupported = await send({ fromNumber: noOutboundSmsNumber, toNumber: '+14155550100', text: 'x' });
    expect([unsupported.status, unsupported.body.error.code]).toEqual([501, 'NOT_IMPLEMENTED']);
    expect(unsupported.body.error).not.toHaveProperty('details');
  });

  it('renews a number: the SIM gets a new E.164 number', async () => {
    const { physicalIccid } = s.sandbox.fixtures;
    const before = (await get(`/api/v1.1/sims?search=${physicalIccid}`)).body.data[0].phoneNumber as string;
    expect(before).toMatch(/^\+\d+$/);
    const res = await post(`/api/v1.1/sims/${physicalIccid}/renew-number`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ iccid: physicalIccid, phoneNumber: expect.stringMatching(/^\+61\d{9}$/), previousPhoneNumber: before });
    expect(res.body.data.phoneNumber).not.toBe(before);
    expect((await get(`/api/v1.1/sims?search=${encodeURIComponent(res.body.data.phoneNumber)}`)).body.data[0].iccid).toBe(physicalIccid);
    expect((await post('/api/v1.1/sims/8900000000000000000/renew-number')).body.error.code).toBe('SIM_NOT_FOUND');
  });
});
