import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LoggedRequest, type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { NotFoundError, PartnerClient } from '../../src/index.js';

let sandbox: SandboxHandle;
let client: PartnerClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, transactionDelayMs: 20 });
  client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.reset();
});

/** Partner-API requests the sandbox received, token exchanges left out. */
function seen(): LoggedRequest[] {
  return sandbox.requests().filter((request) => request.path !== '/api/v1.1/auth/token');
}

function only(): LoggedRequest {
  const requests = seen();
  expect(requests).toHaveLength(1);
  return requests[0] as LoggedRequest;
}

describe('SIMs and subscriptions', () => {
  it('sims.list sends the filters under their wire names and types the page', async () => {
    const page = await client.sims.list({ page: 1, pageSize: 5, status: 'ACTIVE', assignedStatus: 'ASSIGNED' });
    expect(only()).toMatchObject({
      method: 'GET',
      path: '/api/v1.1/sims',
      query: { page: '1', pageSize: '5', status: 'ACTIVE', assignedStatus: 'ASSIGNED' },
    });
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.length).toBeLessThanOrEqual(5);
    expect(page.data.every((sim) => sim.status === 'ACTIVE' && sim.assignedStatus === 'ASSIGNED')).toBe(true);
    expect(page.meta).toMatchObject({ page: 1, pageSize: 5 });
  });

  it('sims.list search and assignedTo narrow the SIMs', async () => {
    const { physicalIccid } = sandbox.fixtures;
    const bySearch = await client.sims.list({ search: physicalIccid });
    expect(bySearch.data.map((sim) => sim.iccid)).toEqual([physicalIccid]);
    const email = bySearch.data[0]?.assignedTo?.email;
    expect(email).toEqual(expect.any(String));
    const byUser = await client.sims.list({ assignedTo: email as string });
    expect(byUser.data.every((sim) => sim.assignedTo?.email === email)).toBe(true);
    expect(seen()[1]?.query).toEqual({ assignedTo: email });
  });

  it('sims.retrieveSubscription reads one SIM and 404s as NotFoundError', async () => {
    const detail = await client.sims.retrieveSubscription(sandbox.fixtures.activeSubscriptionIccid);
    expect(detail.iccid).toBe(sandbox.fixtures.activeSubscriptionIccid);
    expect(detail).toHaveProperty('planCode');
    expect(seen()[0]).toMatchObject({ method: 'GET', path: `/api/v1.1/sims/${sandbox.fixtures.activeSubscriptionIccid}/subscription` });
    const error = await client.sims.retrieveSubscription(sandbox.fixtures.noSubscriptionIccid).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('SUBSCRIPTION_NOT_FOUND');
  });

  it('sims.renewNumber gives the SIM a new number', async () => {
    const previous = sandbox.fixtures.phoneNumber;
    const renewed = await client.sims.renewNumber(sandbox.fixtures.physicalIccid);
    expect(only()).toMatchObject({ method: 'POST', path: `/api/v1.1/sims/${sandbox.fixtures.physicalIccid}/renew-number`, body: {} });
    expect(renewed.phoneNumber).toMatch(/^\+\d+$/);
    expect(renewed.phoneNumber).not.toBe(previous);
  });

  it('subscriptions.list filters by status', async () => {
    const page = await client.subscriptions.list({ status: 'CANCELLED', pageSize: 10 });
    expect(only()).toMatchObject({ method: 'GET', path: '/api/v1.1/subscriptions', query: { status: 'CANCELLED', pageSize: '10' } });
    expect(page.data.every((subscription) => subscription.status === 'CANCELLED')).toBe(true);
  });

  it('subscriptions.cancel schedules the cancellation with an idempotency key', async () => {
    const iccid = sandbox.fixtures.activeSubscriptionIccid;
    const cancelled = await client.subscriptions.cancel(iccid);
    const request = only();
    expect(request).toMatchObject({ method: 'POST', path: `/api/v1.1/subscriptions/${iccid}/cancel` });
    expect(request.headers['idempotency-key']).toEqual(expect.any(String));
    expect(cancelled).toMatchObject({ iccid, status: 'CANCEL_SCHEDULED' });
  });
});

describe('plans, eSIM, billing, port-ins', () => {
  it('plans.retrieve encodes a plan id with spaces', async () => {
    const plan = await client.plans.retrieve(sandbox.fixtures.pricedPlanId);
    expect(only().path).toBe(`/api/v1.1/plans/${encodeURIComponent(sandbox.fixtures.pricedPlanId)}`);
    expect(only().path).toContain('%20');
    expect(plan.productId).toBe(sandbox.fixtures.pricedPlanId);
    const payg = await client.plans.retrieve(sandbox.fixtures.paygPlanId);
    expect(payg.planType).toBe('PAY_AS_YOU_GO');
    expect(payg.tieredPricing).toEqual(expect.any(Object));
  });

  it('plans.purchase buys synchronously', async () => {
    const body = { planId: sandbox.fixtures.pricedPlanId, iccid: sandbox.fixtures.physicalIccid };
    const order = await client.plans.purchase(body);
    expect(only()).toMatchObject({ method: 'POST', path: '/api/v1.1/plans/purchase', body });
    expect(order.orderId).toEqual(expect.any(String));
    await expect(client.orders.retrieve(order.orderId as string)).resolves.toMatchObject({ orderId: order.orderId });
  });

  it('plans.purchaseAsync resolves to a handle that completes', async () => {
    const body = { planId: sandbox.fixtures.pricedPlanId, iccid: sandbox.fixtures.physicalIccid };
    const handle = await client.plans.purchaseAsync(body);
    expect(only()).toMatchObject({ method: 'POST', path: '/api/v3/plans/purchase', body });
    const done = await handle.wait({ pollIntervalMs: 10 });
    expect(done.status).toBe('COMPLETED');
    expect(done.result).toMatchObject({ planId: sandbox.fixtures.pricedPlanId });
  });

  it('esim.retrieveQr reads the activation; a physical SIM is a 400', async () => {
    const activation = await client.esim.retrieveQr(sandbox.fixtures.esimIccid);
    expect(only()).toMatchObject({ method: 'GET', path: `/api/v1.1/esim/${sandbox.fixtures.esimIccid}/qr` });
    expect(activation.activationCode).toEqual(expect.any(String));
    const never = await client.esim.retrieveQr(sandbox.fixtures.esimWithoutActivationCodeIccid);
    expect(never.activationCode).toBeNull();
    await expect(client.esim.retrieveQr(sandbox.fixtures.physicalIccid)).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('esim.provision and wait() give mdn, iccid and qrCode', async () => {
    const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
    expect(only()).toMatchObject({ method: 'POST', path: '/api/v1.1/esim', body: { planId: sandbox.fixtures.pricedPlanId } });
    const statuses: string[] = [];
    const done = await handle.wait({ pollIntervalMs: 10, onProgress: (transaction) => statuses.push(transaction.status) });
    expect(done.result).toEqual({ mdn: expect.any(String), iccid: expect.any(String), qrCode: expect.any(String) });
    expect(statuses.at(-1)).toBe('COMPLETED');
    const polls = seen().filter((request) => request.path === `/api/v3/transactions/${handle.transactionId}`);
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((request) => request.headers['authorization'] === undefined)).toBe(true);
  });

  it('billing.retrieveCreditBalance and billing.topUp move the balance', async () => {
    const before = await client.billing.retrieveCreditBalance();
    const currency = before.creditBalance[0]?.currency as string;
    const amountBefore = before.creditBalance[0]?.amount as number;
    const handle = await client.billing.topUp({ amount: 25, currency });
    expect(seen()[1]).toMatchObject({ method: 'POST', path: '/api/v1.1/top-up', body: { amount: 25, currency } });
    await handle.wait({ pollIntervalMs: 10 });
    const after = await client.billing.retrieveCreditBalance();
    expect(after.creditBalance.find((balance) => balance.currency === currency)?.amount).toBeCloseTo(amountBefore + 25);
  });

  it('portIns.list, checkEligibility without a bearer, and submit outside the envelope', async () => {
    const page = await client.portIns.list({ status: 'PENDING' });
    expect(page.data.every((portIn) => portIn.status === 'PENDING')).toBe(true);
    const eligibility = await client.portIns.checkEligibility({ portInNumber: '+61400123456' });
    expect(eligibility.eligible).toBe(true);
    const check = seen()[1] as LoggedRequest;
    expect(check).toMatchObject({ method: 'POST', path: '/api/v1.1/port-in/eligibility', body: { portInNumber: '+61400123456' } });
    expect(check.headers['authorization']).toBeUndefined();
    const handle = await client.portIns.submit({ portInNumber: '+61400123456', iccid: sandbox.fixtures.physicalIccid });
    expect(seen()[2]).toMatchObject({ method: 'POST', path: '/api/v3/port-in' });
    const done = await handle.wait({ pollIntervalMs: 10 });
    expect(done.result).toMatchObject({ portInNumber: '+61400123456' });
  });
});

describe('team, groups, devices, users, orders', () => {
  it('teamMembers.list, retrieve with a "+" email, and create', async () => {
    const page = await client.teamMembers.list({ pageSize: 50 });
    expect(page.data.some((member) => member.email === sandbox.fixtures.standardAdminEmail && Array.isArray(member.departments))).toBe(true);
    const email = sandbox.fixtures.plusTeamMemberEmail;
    expect(email).toContain('+');
    const member = await client.teamMembers.retrieve(email);
    expect(seen()[1]?.path).toBe(`/api/v1.1/team-members/${encodeURIComponent(email)}`);
    expect(member.email).toBe(email);
    expect(member.invitedAt).toEqual(expect.any(String));
    const created = await client.teamMembers.create({ name: 'Nia', email: 'nia@example.com', role: 'Admin' });
    expect(seen()[2]).toMatchObject({ method: 'POST', path: '/api/v1.1/team-members', body: { name: 'Nia', email: 'nia@example.com', role: 'Admin' } });
    expect(created).toMatchObject({ email: 'nia@example.com', status: 'invited' });
    await expect(client.teamMembers.retrieve('nobody@example.com')).rejects.toMatchObject({ code: 'ADMIN_NOT_FOUND' });
  });

  it('simGroups.retrieve and userGroups.delete encode names with "/" as one segment', async () => {
    const name = sandbox.fixtures.simGroupNames.find((group) => group.includes('/')) as string;
    const group = await client.simGroups.retrieve(name);
    expect(group.name).toBe(name);
    expect(only().path).toBe(`/api/v1.1/sim-groups/${encodeURIComponent(name)}`);
    const userGroup = sandbox.fixtures.userGroupNames[0] as string;
    const deleted = await client.userGroups.delete(userGroup);
    expect(deleted).toEqual({ name: userGroup, status: 'DELETED' });
    expect(seen()[1]).toMatchObject({ method: 'DELETE', path: `/api/v1.1/user-groups/${encodeURIComponent(userGroup)}` });
    await expect(client.simGroups.retrieve('..')).rejects.toBeInstanceOf(NotFoundError);
    expect(seen()[2]?.path).toBe('/api/v1.1/sim-groups/%2E%2E');
  });

  it('simGroups.retrieve encodes unicode and spaces, and keeps names case-sensitive', async () => {
    const unicode = sandbox.fixtures.simGroupNames.find((group) => /[^\x00-\x7f]/.test(group)) as string;
    expect(unicode).toBeDefined();
    await expect(client.simGroups.retrieve(unicode)).resolves.toMatchObject({ name: unicode });
    expect(only().path).toBe(`/api/v1.1/sim-groups/${encodeURIComponent(unicode)}`);
    const lower = await client.simGroups.retrieve('engineering');
    const upper = await client.simGroups.retrieve('Engineering');
    expect(lower.spendLimit).not.toBe(upper.spendLimit);
  });

  it('devices.assign assigns a device to an end user', async () => {
    const imei = sandbox.fixtures.unassignedImei;
    const assignment = await client.devices.assign(imei, { email: sandbox.fixtures.endUserEmail });
    expect(only()).toMatchObject({ method: 'POST', path: `/api/v1.1/devices/${imei}/assign`, body: { email: sandbox.fixtures.endUserEmail } });
    expect(assignment).toMatchObject({ imei, assignedTo: { email: sandbox.fixtures.endUserEmail } });
  });

  it('users.list pages through end users; orders.retrieve reads an order', async () => {
    const users = await client.users.list({ pageSize: 3 });
    expect(users.data.length).toBeLessThanOrEqual(3);
    expect(only()).toMatchObject({ method: 'GET', path: '/api/v1.1/users', query: { pageSize: '3' } });
    const order = await client.orders.retrieve(sandbox.fixtures.orderId);
    expect(order).toMatchObject({ orderId: sandbox.fixtures.orderId });
  });
});

describe('messaging and webhooks', () => {
  it('sms.send sends from a provisioned number', async () => {
    const body = { fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+61400999888', text: 'hello' };
    const sent = await client.sms.send(body);
    expect(only()).toMatchObject({ method: 'POST', path: '/api/v1.1/sms', body });
    expect(sent.message).toEqual(expect.any(String));
  });

  it('voiceQuality.webhooks.list pages through voice quality webhooks', async () => {
    const page = await client.voiceQuality.webhooks.list({ page: 1, pageSize: 10 });
    expect(only()).toMatchObject({ method: 'GET', path: '/api/v1.1/voice-quality/webhooks', query: { page: '1', pageSize: '10' } });
    expect(page.data.every((webhook) => webhook.id.startsWith('vqwh_'))).toBe(true);
  });

  it('webhooks: create (with the one-time secret), list, retrieve, update, test, deliveries, delete', async () => {
    const created = await client.webhooks.create({
      operator: 'Optus',
      network: 'Optus 5G',
      eventType: 'voice',
      webhookUrls: { voiceUrl: 'http://127.0.0.1:9/voice', voiceStreamUrl: 'ws://127.0.0.1:9/stream' },
      retryPolicy: { maxAttempts: 3, backoffStrategy: 'fixed', initialDelaySeconds: 1, maxDelaySeconds: 60 },
    });
    expect(created.signingSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(seen()[0]).toMatchObject({ method: 'POST', path: '/api/v1.1/webhooks' });
    const listed = await client.webhooks.list();
    expect(listed.map((registration) => registration.id)).toContain(created.id);
    expect(listed.every((registration) => !('signingSecret' in registration))).toBe(true);
    const read = await client.webhooks.retrieve(created.id);
    expect(read.status).toBe('active');
    const updated = await client.webhooks.update(created.id, { eventType: 'both' });
    expect(updated.eventType).toBe('both');
    expect(seen()[3]).toMatchObject({ method: 'PUT', path: `/api/v1.1/webhooks/${created.id}`, body: { eventType: 'both' } });
    await expect(client.webhooks.test(created.id)).rejects.toMatchObject({ status: 502, code: 'DELIVERY_FAILED' });
    expect(seen()[4]).toMatchObject({ method: 'POST', path: `/api/v1.1/webhooks/${created.id}/test`, body: { eventType: 'webhook.test' } });
    const deliveries = await client.webhooks.deliveries.list({ webhookId: created.id });
    expect(seen()[5]).toMatchObject({ method: 'GET', path: '/api/v1.1/webhook-deliveries', query: { webhookId: created.id } });
    expect(deliveries.length).toBeGreaterThan(0);
    const redelivery = await client.webhooks.deliveries.redeliver(deliveries[0]?.deliveryId as string);
    expect(redelivery.status).toBe('PENDING');
    expect(seen()[6]).toMatchObject({ method: 'POST', path: `/api/v1.1/webhook-deliveries/${deliveries[0]?.deliveryId}/redeliver` });
    await client.webhooks.delete(created.id);
    expect(seen()[7]).toMatchObject({ method: 'DELETE', path: `/api/v1.1/webhooks/${created.id}` });
    await expect(client.webhooks.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('transactions.retrieve reads one status without a bearer', async () => {
    const handle = await client.esim.provision({});
    const transaction = await client.transactions.retrieve(handle.transactionId);
    expect(transaction.transactionId).toBe(handle.transactionId);
    expect(seen()[1]?.headers['authorization']).toBeUndefined();
  });

  it('auth.token returns the token response as on the wire', async () => {
    const token = await client.auth.token();
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(token.access_token).toEqual(expect.any(String));
  });
});
