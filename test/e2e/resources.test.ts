/**
 * What the resource table (every-method.test.ts) does not show: the sandbox honouring the
 * wire names we chose, error mapping, encoding corner cases, and effects of writes.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, NotImplementedError } from '../../src/index.js';
import { partnerRequests, useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 7 });

describe('SIMs and subscriptions', () => {
  it('the sandbox honours the chosen wire names of search and assignedTo', async () => {
    const { client, sandbox } = run();
    const { physicalIccid } = sandbox.fixtures;
    const bySearch = await client.sims.list({ search: physicalIccid });
    expect(bySearch.data.map((sim) => sim.iccid)).toEqual([physicalIccid]);
    const email = bySearch.data[0]?.assignedTo?.email as string;
    expect(email).toEqual(expect.any(String));
    const byUser = await client.sims.list({ assignedTo: email, assignedStatus: 'ASSIGNED' });
    expect(byUser.data.length).toBeGreaterThan(0);
    expect(byUser.data.every((sim) => sim.assignedTo?.email === email && sim.assignedStatus === 'ASSIGNED')).toBe(true);
  });

  it('a SIM without a subscription is a NotFoundError with SUBSCRIPTION_NOT_FOUND', async () => {
    const { client, sandbox } = run();
    const error = await client.sims.retrieveSubscription(sandbox.fixtures.noSubscriptionIccid).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('SUBSCRIPTION_NOT_FOUND');
  });

  it('subscriptions.cancel generates an idempotency key, and a second cancel is a ConflictError', async () => {
    const { client, sandbox } = run();
    const iccid = sandbox.fixtures.activeSubscriptionIccid;
    await expect(client.subscriptions.cancel(iccid)).resolves.toMatchObject({ iccid, status: 'CANCEL_SCHEDULED' });
    await expect(client.subscriptions.cancel(iccid)).rejects.toBeInstanceOf(ConflictError);
    const [first, second] = partnerRequests(sandbox);
    expect(first?.headers['idempotency-key']).toEqual(expect.any(String));
    expect(second?.headers['idempotency-key']).not.toBe(first?.headers['idempotency-key']);
  });
});

describe('plans, eSIM, billing, port-ins', () => {
  it('a PAY_AS_YOU_GO plan carries tieredPricing', async () => {
    const { client, sandbox } = run();
    const payg = await client.plans.retrieve(sandbox.fixtures.paygPlanId);
    expect(payg.planType).toBe('PAY_AS_YOU_GO');
    expect(payg.tieredPricing).toEqual(expect.any(Object));
  });

  it('esim.retrieveQr: a never-persisted activation code is null, a physical SIM is a 400', async () => {
    const { client, sandbox } = run();
    await expect(client.esim.retrieveQr(sandbox.fixtures.esimWithoutActivationCodeIccid)).resolves.toMatchObject({ activationCode: null });
    await expect(client.esim.retrieveQr(sandbox.fixtures.physicalIccid)).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('plans.purchaseAsync and portIns.submit complete with their operation results', async () => {
    const { client, sandbox } = run();
    const purchase = await client.plans.purchaseAsync({ planId: sandbox.fixtures.pricedPlanId, iccid: sandbox.fixtures.physicalIccid });
    await expect(purchase.wait({ pollIntervalMs: 100 })).resolves.toMatchObject({ result: { planId: sandbox.fixtures.pricedPlanId } });
    const portIn = await client.portIns.submit({ portInNumber: '+61400123456', iccid: sandbox.fixtures.physicalIccid });
    await expect(portIn.wait({ pollIntervalMs: 100 })).resolves.toMatchObject({ result: { portInNumber: '+61400123456' } });
  });

  it('billing.topUp, once completed, moves the credit balance', async () => {
    const { client } = run();
    const before = await client.billing.retrieveCreditBalance();
    const currency = before.creditBalance[0]?.currency as string;
    const amountBefore = before.creditBalance[0]?.amount as number;
    const handle = await client.billing.topUp({ amount: 25, currency });
    await handle.wait({ pollIntervalMs: 100 });
    const after = await client.billing.retrieveCreditBalance();
    expect(after.creditBalance.find((balance) => balance.currency === currency)?.amount).toBeCloseTo(amountBefore + 25);
  });
});

describe('team, groups, messaging', () => {
  it('teamMembers.list carries departments on Standard Admin rows; an unknown email is ADMIN_NOT_FOUND', async () => {
    const { client, sandbox } = run();
    const page = await client.teamMembers.list({ pageSize: 50 });
    expect(page.data.some((member) => member.email === sandbox.fixtures.standardAdminEmail && Array.isArray(member.departments))).toBe(true);
    await expect(client.teamMembers.retrieve('nobody@example.com')).rejects.toMatchObject({ code: 'ADMIN_NOT_FOUND' });
  });

  it('a group name ".." stays one segment and is looked up as a name', async () => {
    const { client, sandbox } = run();
    await expect(client.simGroups.retrieve('..')).rejects.toBeInstanceOf(NotFoundError);
    expect(partnerRequests(sandbox)[0]?.path).toBe('/api/v1.1/sim-groups/%2E%2E');
  });

  it('simGroups.retrieve encodes unicode and keeps names case-sensitive', async () => {
    const { client, sandbox } = run();
    // eslint-disable-next-line no-control-regex -- the class is "outside ASCII", NUL included on purpose
    const unicode = sandbox.fixtures.simGroupNames.find((group) => /[^\x00-\x7f]/.test(group)) as string;
    expect(unicode).toBeDefined();
    await expect(client.simGroups.retrieve(unicode)).resolves.toMatchObject({ name: unicode });
    expect(partnerRequests(sandbox)[0]?.path).toBe(`/api/v1.1/sim-groups/${encodeURIComponent(unicode)}`);
    const lower = await client.simGroups.retrieve('engineering');
    const upper = await client.simGroups.retrieve('Engineering');
    expect(lower.spendLimit).not.toBe(upper.spendLimit);
  });

  it('sms.send from an operator without outbound SMS is a NotImplementedError', async () => {
    const { client, sandbox } = run();
    const error = await client.sms
      .send({ fromNumber: sandbox.fixtures.noOutboundSmsNumber, toNumber: '+61400999888', text: 'hello' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotImplementedError);
    expect((error as NotImplementedError).code).toBe('NOT_IMPLEMENTED');
  });
});

describe('webhooks', () => {
  it('a registration lives through create, read without secret, update, failed test, redelivery and delete', async () => {
    const { client } = run();
    const created = await client.webhooks.create({
      operator: 'Optus',
      network: 'Optus 5G',
      eventType: 'voice',
      webhookUrls: { voiceUrl: 'http://127.0.0.1:9/voice', voiceStreamUrl: 'ws://127.0.0.1:9/stream' },
    });
    expect(created.signingSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const listed = (await client.webhooks.list()).data;
    expect(listed.map((registration) => registration.id)).toContain(created.id);
    expect(listed.every((registration) => !('signingSecret' in registration))).toBe(true);
    await expect(client.webhooks.update(created.id, { eventType: 'both' })).resolves.toMatchObject({ eventType: 'both' });
    await expect(client.webhooks.test(created.id)).rejects.toMatchObject({ status: 502, code: 'DELIVERY_FAILED' });
    const {
      data: [delivery],
    } = await client.webhooks.deliveries.list({ webhookId: created.id });
    expect(delivery?.status).toBe('FAILED');
    await expect(client.webhooks.deliveries.redeliver(delivery?.deliveryId as string)).resolves.toMatchObject({ status: 'PENDING' });
    await client.webhooks.delete(created.id);
    await expect(client.webhooks.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('registering the same operator and network again without update is a ConflictError', async () => {
    const { client } = run();
    const body = { operator: 'Optus', network: 'Optus 5G', eventType: 'sms' as const };
    await client.webhooks.create(body);
    await expect(client.webhooks.create(body)).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    await expect(client.webhooks.create({ ...body, eventType: 'voice', update: true })).resolves.toMatchObject({ eventType: 'voice' });
  });
});
