/** API.md's resource table as data: each method's call, the request it must send, and how its answer is checked. */
import { expect } from 'vitest';
import { DeliveryFailedError, type RequestOptions } from '../../src/index.js';
import { type SandboxRun, rawCall } from './sandbox.js';

type Context = Record<string, string>;

export interface Row {
  name: string;
  /** Runs before the call; its requests are not part of the check. */
  setup?: (run: SandboxRun) => Promise<Context>;
  call: (run: SandboxRun, context: Context, options: RequestOptions) => PromiseLike<unknown>;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: (run: SandboxRun, context: Context) => string;
  query?: Record<string, string> | ((run: SandboxRun, context: Context) => Record<string, string>);
  body?: (run: SandboxRun, context: Context) => unknown;
  /** HTTP status the sandbox answered; default 200. */
  status?: number;
  /** false for the two open routes (spec part 5 rule 4). */
  bearer?: boolean;
  /** How the result is compared: 'read' repeats the GET, 'replay' replays the keyed write. */
  oracle: 'read' | 'replay' | 'repeat' | ((result: unknown, run: SandboxRun) => Promise<void>);
  /** Top-level fields that legitimately differ between two answers. */
  volatile?: string[];
  /** The answer is outside the standard envelope (port-in submission). */
  bare?: boolean;
  /** The call makes several requests of the same route (wait() polls). */
  polls?: boolean;
}

const fx = (r: SandboxRun) => r.sandbox.fixtures;
const enc = encodeURIComponent;

async function webhookFor(r: SandboxRun, url: string): Promise<Context> {
  const registration = await r.client.webhooks.create({
    operator: 'Optus',
    network: 'Optus 5G',
    eventType: 'sms',
    update: true,
    webhookUrls: { messageUrl: url },
  });
  return { id: registration.id };
}

async function failedDelivery(r: SandboxRun): Promise<Context> {
  const { id } = await webhookFor(r, 'http://127.0.0.1:9/unreachable');
  await expect(r.client.webhooks.test(id as string)).rejects.toBeInstanceOf(DeliveryFailedError);
  const {
    data: [delivery],
  } = await r.client.webhooks.deliveries.list({ webhookId: id as string });
  return { id: id as string, deliveryId: delivery?.deliveryId as string };
}

async function acceptedTransaction(r: SandboxRun): Promise<Context> {
  const handle = await r.client.esim.provision({ planId: fx(r).pricedPlanId });
  return { transactionId: handle.transactionId };
}

/** A transaction that has reached its terminal status, so that two reads of it can only differ in `timestamp`. */
async function settledTransaction(r: SandboxRun): Promise<Context> {
  const handle = await r.client.esim.provision({ planId: fx(r).pricedPlanId });
  await handle.wait({ pollIntervalMs: 100 });
  return { transactionId: handle.transactionId };
}

/** The rows, in API.md's order; `receiverUrl` is a partner endpoint that accepts every delivery. */
export function resourceTable(receiverUrl: () => string): Row[] {
  return [
    {
      name: 'auth.token',
      call: (r, _x, o) => r.client.auth.token(o),
      method: 'POST',
      path: () => '/api/v1.1/auth/token',
      body: () => ({ key: '[REDACTED]', secret: '[REDACTED]' }),
      bearer: false,
      oracle: async (result, r) => {
        expect(result).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, expires_at: expect.any(String) });
        const token = (result as { access_token: string }).access_token;
        const balance = await rawCall(r.sandbox, { method: 'GET', path: '/api/v1.1/credit-balance', token });
        expect(balance.status).toBe(200);
      },
    },
    {
      name: 'sims.list',
      setup: async (r) => {
        const page = await r.client.sims.list({ search: fx(r).physicalIccid });
        return { email: page.data[0]?.assignedTo?.email as string };
      },
      call: (r, x, o) =>
        r.client.sims.list(
          { page: 1, pageSize: 5, status: 'ACTIVE', assignedStatus: 'ASSIGNED', assignedTo: x['email'] as string, search: 'Optus' },
          o,
        ),
      method: 'GET',
      path: () => '/api/v1.1/sims',
      query: { page: '1', pageSize: '5', status: 'ACTIVE', assignedStatus: 'ASSIGNED', search: 'Optus' },
      oracle: 'read',
    },
    {
      name: 'sims.retrieveSubscription',
      call: (r, _x, o) => r.client.sims.retrieveSubscription(fx(r).activeSubscriptionIccid, o),
      method: 'GET',
      path: (r) => `/api/v1.1/sims/${fx(r).activeSubscriptionIccid}/subscription`,
      oracle: 'read',
    },
    {
      name: 'sims.renewNumber',
      call: (r, _x, o) => r.client.sims.renewNumber(fx(r).physicalIccid, {}, o),
      method: 'POST',
      path: (r) => `/api/v1.1/sims/${fx(r).physicalIccid}/renew-number`,
      body: () => ({}),
      oracle: 'replay',
    },
    {
      name: 'subscriptions.list',
      call: (r, _x, o) => r.client.subscriptions.list({ page: 1, pageSize: 10, status: 'ACTIVE' }, o),
      method: 'GET',
      path: () => '/api/v1.1/subscriptions',
      query: { page: '1', pageSize: '10', status: 'ACTIVE' },
      oracle: 'read',
    },
    {
      name: 'subscriptions.cancel',
      call: (r, _x, o) => r.client.subscriptions.cancel(fx(r).activeSubscriptionIccid, o),
      method: 'POST',
      path: (r) => `/api/v1.1/subscriptions/${fx(r).activeSubscriptionIccid}/cancel`,
      status: 201,
      oracle: 'replay',
    },
    {
      name: 'plans.retrieve',
      call: (r, _x, o) => r.client.plans.retrieve(fx(r).pricedPlanId, o),
      method: 'GET',
      path: (r) => `/api/v1.1/plans/${enc(fx(r).pricedPlanId)}`,
      oracle: 'read',
    },
    {
      name: 'plans.purchase',
      call: (r, _x, o) => r.client.plans.purchase({ planId: fx(r).pricedPlanId, iccid: fx(r).physicalIccid }, o),
      method: 'POST',
      path: () => '/api/v1.1/plans/purchase',
      body: (r) => ({ planId: fx(r).pricedPlanId, iccid: fx(r).physicalIccid }),
      oracle: 'replay',
    },
    {
      name: 'plans.purchaseAsync',
      call: (r, _x, o) => r.client.plans.purchaseAsync({ planId: fx(r).pricedPlanId, iccid: fx(r).physicalIccid }, o),
      method: 'POST',
      path: () => '/api/v3/plans/purchase',
      body: (r) => ({ planId: fx(r).pricedPlanId, iccid: fx(r).physicalIccid }),
      status: 202,
      oracle: 'replay',
    },
    {
      name: 'esim.retrieveQr',
      call: (r, _x, o) => r.client.esim.retrieveQr(fx(r).esimIccid, o),
      method: 'GET',
      path: (r) => `/api/v1.1/esim/${fx(r).esimIccid}/qr`,
      oracle: 'read',
    },
    {
      name: 'esim.provision',
      call: (r, _x, o) => r.client.esim.provision({ planId: fx(r).pricedPlanId }, o),
      method: 'POST',
      path: () => '/api/v1.1/esim',
      body: (r) => ({ planId: fx(r).pricedPlanId }),
      status: 202,
      oracle: 'replay',
    },
    {
      name: 'portIns.list',
      call: (r, _x, o) => r.client.portIns.list({ pageSize: 5, status: 'PENDING' }, o),
      method: 'GET',
      path: () => '/api/v1.1/port-ins',
      query: { pageSize: '5', status: 'PENDING' },
      oracle: 'read',
    },
    {
      name: 'portIns.checkEligibility',
      call: (r, _x, o) => r.client.portIns.checkEligibility({ portInNumber: '+61400123456' }, o),
      method: 'POST',
      path: () => '/api/v1.1/port-in/eligibility',
      body: () => ({ portInNumber: '+61400123456' }),
      bearer: false,
      oracle: 'repeat',
    },
    {
      name: 'portIns.submit',
      call: (r, _x, o) => r.client.portIns.submit({ portInNumber: '+61400123456', iccid: fx(r).physicalIccid }, o),
      method: 'POST',
      path: () => '/api/v3/port-in',
      body: (r) => ({ portInNumber: '+61400123456', iccid: fx(r).physicalIccid }),
      status: 202,
      bare: true,
      oracle: 'replay',
    },
    {
      name: 'billing.retrieveCreditBalance',
      call: (r, _x, o) => r.client.billing.retrieveCreditBalance(o),
      method: 'GET',
      path: () => '/api/v1.1/credit-balance',
      oracle: 'read',
    },
    {
      name: 'billing.topUp',
      call: (r, _x, o) => r.client.billing.topUp({ amount: 25, currency: 'aud' }, o),
      method: 'POST',
      path: () => '/api/v1.1/top-up',
      body: () => ({ amount: 25, currency: 'aud' }),
      status: 201,
      oracle: 'replay',
    },
    {
      name: 'teamMembers.list',
      call: (r, _x, o) => r.client.teamMembers.list({ page: 1, pageSize: 50 }, o),
      method: 'GET',
      path: () => '/api/v1.1/team-members',
      query: { page: '1', pageSize: '50' },
      oracle: 'read',
    },
    {
      name: 'teamMembers.retrieve',
      call: (r, _x, o) => r.client.teamMembers.retrieve(fx(r).plusTeamMemberEmail, o),
      method: 'GET',
      path: (r) => `/api/v1.1/team-members/${enc(fx(r).plusTeamMemberEmail)}`,
      oracle: 'read',
    },
    {
      name: 'teamMembers.create',
      call: (r, _x, o) => r.client.teamMembers.create({ name: 'Nia', email: 'nia+ops@example.com', role: 'Admin' }, o),
      method: 'POST',
      path: () => '/api/v1.1/team-members',
      body: () => ({ name: 'Nia', email: 'nia+ops@example.com', role: 'Admin' }),
      status: 201,
      oracle: 'replay',
    },
    {
      name: 'simGroups.retrieve',
      call: (r, _x, o) => r.client.simGroups.retrieve(fx(r).simGroupNames.find((name) => name.includes('/')) as string, o),
      method: 'GET',
      path: (r) => `/api/v1.1/sim-groups/${enc(fx(r).simGroupNames.find((name) => name.includes('/')) as string)}`,
      oracle: 'read',
    },
    {
      name: 'userGroups.delete',
      call: (r, _x, o) => r.client.userGroups.delete(fx(r).userGroupNames[0] as string, o),
      method: 'DELETE',
      path: (r) => `/api/v1.1/user-groups/${enc(fx(r).userGroupNames[0] as string)}`,
      oracle: 'replay',
    },
    {
      name: 'devices.assign',
      call: (r, _x, o) => r.client.devices.assign(fx(r).unassignedImei, { email: fx(r).endUserEmail }, o),
      method: 'POST',
      path: (r) => `/api/v1.1/devices/${fx(r).unassignedImei}/assign`,
      body: (r) => ({ email: fx(r).endUserEmail }),
      oracle: 'replay',
    },
    {
      name: 'sms.send',
      call: (r, _x, o) => r.client.sms.send({ fromNumber: fx(r).phoneNumber, toNumber: '+61400999888', text: 'hello' }, o),
      method: 'POST',
      path: () => '/api/v1.1/sms',
      body: (r) => ({ fromNumber: fx(r).phoneNumber, toNumber: '+61400999888', text: 'hello' }),
      status: 201,
      oracle: 'replay',
    },
    {
      name: 'voiceQuality.webhooks.list',
      call: (r, _x, o) => r.client.voiceQuality.webhooks.list({ page: 1, pageSize: 10 }, o),
      method: 'GET',
      path: () => '/api/v1.1/voice-quality/webhooks',
      query: { page: '1', pageSize: '10' },
      oracle: 'read',
    },
    {
      name: 'webhooks.create',
      call: (r, _x, o) =>
        r.client.webhooks.create(
          {
            operator: 'Optus',
            network: 'Optus 5G',
            eventType: 'voice',
            webhookUrls: { voiceUrl: 'https://partner.example/voice', voiceStreamUrl: 'wss://partner.example/stream' },
            retryPolicy: { maxAttempts: 5, backoffStrategy: 'linear', initialDelaySeconds: 2, maxDelaySeconds: 120 },
          },
          o,
        ),
      method: 'POST',
      path: () => '/api/v1.1/webhooks',
      body: () => ({
        operator: 'Optus',
        network: 'Optus 5G',
        eventType: 'voice',
        webhookUrls: { voiceUrl: 'https://partner.example/voice', voiceStreamUrl: 'wss://partner.example/stream' },
        retryPolicy: { maxAttempts: 5, backoffStrategy: 'linear', initialDelaySeconds: 2, maxDelaySeconds: 120 },
      }),
      oracle: 'replay',
    },
    {
      name: 'webhooks.list',
      setup: (r) => webhookFor(r, 'https://partner.example/sms'),
      call: (r, _x, o) => r.client.webhooks.list(undefined, o),
      method: 'GET',
      path: () => '/api/v1.1/webhooks',
      oracle: 'read',
    },
    {
      name: 'webhooks.retrieve',
      setup: (r) => webhookFor(r, 'https://partner.example/sms'),
      call: (r, x, o) => r.client.webhooks.retrieve(x['id'] as string, o),
      method: 'GET',
      path: (_r, x) => `/api/v1.1/webhooks/${x['id']}`,
      oracle: 'read',
    },
    {
      name: 'webhooks.update',
      setup: (r) => webhookFor(r, 'https://partner.example/sms'),
      call: (r, x, o) =>
        r.client.webhooks.update(x['id'] as string, { eventType: 'both', webhookUrls: { voiceStreamUrl: 'ws://partner.example/stream' } }, o),
      method: 'PUT',
      path: (_r, x) => `/api/v1.1/webhooks/${x['id']}`,
      body: () => ({ eventType: 'both', webhookUrls: { voiceStreamUrl: 'ws://partner.example/stream' } }),
      oracle: 'replay',
    },
    {
      name: 'webhooks.delete',
      setup: (r) => webhookFor(r, 'https://partner.example/sms'),
      call: (r, x, o) => r.client.webhooks.delete(x['id'] as string, o),
      method: 'DELETE',
      path: (_r, x) => `/api/v1.1/webhooks/${x['id']}`,
      oracle: 'replay',
    },
    {
      name: 'webhooks.test',
      setup: (r) => webhookFor(r, receiverUrl()),
      call: (r, x, o) => r.client.webhooks.test(x['id'] as string, o),
      method: 'POST',
      path: (_r, x) => `/api/v1.1/webhooks/${x['id']}/test`,
      body: () => ({ eventType: 'webhook.test' }),
      oracle: 'replay',
    },
    {
      name: 'webhooks.deliveries.list',
      setup: failedDelivery,
      call: (r, x, o) => r.client.webhooks.deliveries.list({ webhookId: x['id'] as string, status: 'FAILED' }, o),
      method: 'GET',
      path: () => '/api/v1.1/webhook-deliveries',
      query: (_r, x) => ({ webhookId: x['id'] as string, status: 'FAILED' }),
      oracle: 'read',
    },
    {
      name: 'webhooks.deliveries.redeliver',
      setup: failedDelivery,
      call: (r, x, o) => r.client.webhooks.deliveries.redeliver(x['deliveryId'] as string, o),
      method: 'POST',
      path: (_r, x) => `/api/v1.1/webhook-deliveries/${x['deliveryId']}/redeliver`,
      status: 202,
      oracle: 'replay',
    },
    {
      name: 'transactions.retrieve',
      setup: settledTransaction,
      call: (r, x, o) => r.client.transactions.retrieve(x['transactionId'] as string, o),
      method: 'GET',
      path: (_r, x) => `/api/v3/transactions/${x['transactionId']}`,
      bearer: false,
      volatile: ['timestamp'],
      oracle: 'read',
    },
    {
      name: 'transactions.wait',
      setup: acceptedTransaction,
      call: (r, x) => r.client.transactions.wait(x['transactionId'] as string, { pollIntervalMs: 100 }),
      method: 'GET',
      path: (_r, x) => `/api/v3/transactions/${x['transactionId']}`,
      bearer: false,
      volatile: ['timestamp'],
      polls: true,
      oracle: 'read',
    },
    {
      name: 'orders.retrieve',
      call: (r, _x, o) => r.client.orders.retrieve(fx(r).orderId, o),
      method: 'GET',
      path: (r) => `/api/v1.1/orders/${enc(fx(r).orderId)}`,
      oracle: 'read',
    },
    {
      name: 'users.list',
      call: (r, _x, o) => r.client.users.list({ page: 2, pageSize: 3 }, o),
      method: 'GET',
      path: () => '/api/v1.1/users',
      query: { page: '2', pageSize: '3' },
      oracle: 'read',
    },
    {
      name: 'request (escape hatch)',
      call: (r, _x, o) => r.client.request({ method: 'GET', path: '/api/v1.1/sims', query: { pageSize: 2, status: 'EXPIRED' }, ...o }),
      method: 'GET',
      path: () => '/api/v1.1/sims',
      query: { pageSize: '2', status: 'EXPIRED' },
      oracle: 'read',
    },
  ];
}
