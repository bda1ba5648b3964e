/**
 * Every endpoint of spec part 4 as the contract test drives it: the client method that calls it,
 * a valid input (path, query, body), and each input field with the kind of value the spec gives it.
 */
import type { PartnerClient } from '../../src/index.js';
import type { SandboxFixtures } from '../../src/sandbox/index.js';
import type { Kind } from './values.js';

type Location = 'path' | 'query' | 'body';

export interface Input {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The JSON body; undefined when the route sends none. */
  body?: Record<string, unknown> | undefined;
}

export interface Field {
  /** Dotted path inside its location (`retryPolicy.maxAttempts`); '' is the whole body. */
  name: string;
  in: Location;
  kind: Kind;
}

/** What the setup made for the base inputs: live ids the routes check before they read a body. */
export interface Live {
  fixtures: SandboxFixtures;
  webhookId: string;
  deliveryId: string;
  transactionId: string;
  /** The sandbox's base URL. */
  sandboxUrl: string;
  /** A partner endpoint that accepts every delivery. */
  receiverUrl: string;
}

export interface Entry {
  /** `METHOD /path/{param}` as in spec part 4. */
  key: string;
  /** Bodies of endpoints known by name only (spec part 4): their shape is not shown. */
  nameOnly?: true;
  base(live: Live): Input;
  /** Calls the client method with `input`, typed loosely: wrong types are part of the test. */
  call(client: PartnerClient, input: Input, live: Live): PromiseLike<unknown>;
  fields: Field[];
}

// Wrong types are deliberately passed to the client: the inputs are typed loosely.
type Loose = any;
const p = (input: Input, name: string): Loose => input.params[name];
const q = (input: Input): Loose => input.query;
const b = (input: Input): Loose => input.body;

const page: Field[] = [
  { name: 'page', in: 'query', kind: { type: 'int', min: 1 } },
  { name: 'pageSize', in: 'query', kind: { type: 'int', min: 1, max: 100 } },
];
const path = (name: string): Field => ({ name, in: 'path', kind: { type: 'id' } });
const json = (name: string): Field => ({ name, in: 'body', kind: { type: 'json' } });
const wholeBody: Field = { name: '', in: 'body', kind: { type: 'object' } };
const empty = (): Input => ({ params: {}, query: {} });

const URL_FIELDS = ['messageUrl', 'callbackMessageUrl', 'voiceUrl', 'callbackVoiceUrl'];
const registrationFields = (create: boolean): Field[] => [
  wholeBody,
  { name: 'operator', in: 'body', kind: { type: 'string' } },
  { name: 'network', in: 'body', kind: { type: 'string' } },
  { name: 'eventType', in: 'body', kind: { type: 'enum', values: ['sms', 'voice', 'both'] } },
  { name: 'authentication', in: 'body', kind: { type: 'authentication' } },
  { name: 'webhookUrls', in: 'body', kind: { type: 'object' } },
  ...URL_FIELDS.map((name): Field => ({ name: `webhookUrls.${name}`, in: 'body', kind: { type: 'url', schemes: ['http', 'https'] } })),
  { name: 'webhookUrls.voiceStreamUrl', in: 'body', kind: { type: 'url', schemes: ['ws', 'wss', 'http', 'https'] } },
  { name: 'retryPolicy', in: 'body', kind: { type: 'object' } },
  { name: 'retryPolicy.maxAttempts', in: 'body', kind: { type: 'int', min: 1, max: 10 } },
  { name: 'retryPolicy.backoffStrategy', in: 'body', kind: { type: 'enum', values: ['fixed', 'exponential', 'linear'] } },
  { name: 'retryPolicy.initialDelaySeconds', in: 'body', kind: { type: 'int', min: 1, max: 60 } },
  { name: 'retryPolicy.maxDelaySeconds', in: 'body', kind: { type: 'int', min: 60, max: 3600 } },
  { name: 'status', in: 'body', kind: { type: 'enum', values: ['active', 'suspended'] } },
  ...(create ? [{ name: 'update', in: 'body', kind: { type: 'boolean' } } as Field] : []),
];

const registration = (live: Live): Record<string, unknown> => ({
  operator: 'Optus',
  network: 'Optus 5G',
  eventType: 'sms',
  update: true,
  authentication: { type: 'bearer', token: 'receiver-token' },
  webhookUrls: { messageUrl: live.receiverUrl },
  retryPolicy: { maxAttempts: 3, backoffStrategy: 'fixed', initialDelaySeconds: 5, maxDelaySeconds: 300 },
  status: 'active',
});

export const CATALOGUE: Entry[] = [
  {
    key: 'POST /api/v1.1/auth/token',
    base: () => ({ params: {}, query: {}, body: { key: 'k', secret: 's' } }),
    // The key and the secret are client options: the call is the token exchange of a client made with them.
    call: async (_client, input, live) => {
      const { PartnerClient } = await import('../../src/index.js');
      const other = new PartnerClient({ baseUrl: live.sandboxUrl, key: b(input).key, secret: b(input).secret, maxRetries: 0 });
      try {
        return await other.auth.token();
      } finally {
        await other.destroy();
      }
    },
    fields: [
      { name: 'key', in: 'body', kind: { type: 'string' } },
      { name: 'secret', in: 'body', kind: { type: 'string' } },
    ],
  },
  {
    key: 'GET /api/v3/transactions/{transactionId}',
    base: (live) => ({ params: { transactionId: live.transactionId }, query: {} }),
    call: (c, i) => c.transactions.retrieve(p(i, 'transactionId')),
    fields: [path('transactionId')],
  },
  {
    key: 'GET /api/v1.1/sims',
    base: empty,
    call: (c, i) => c.sims.list(q(i)),
    fields: [
      ...page,
      { name: 'status', in: 'query', kind: { type: 'enum', values: ['ACTIVE', 'INACTIVE', 'EXPIRED'] } },
      { name: 'assignedStatus', in: 'query', kind: { type: 'enum', values: ['ASSIGNED', 'UNASSIGNED'] } },
      { name: 'assignedTo', in: 'query', kind: { type: 'email' } },
      { name: 'search', in: 'query', kind: { type: 'string' } },
    ],
  },
  {
    key: 'GET /api/v1.1/subscriptions',
    base: empty,
    call: (c, i) => c.subscriptions.list(q(i)),
    fields: [...page, { name: 'status', in: 'query', kind: { type: 'enum', values: ['ACTIVE', 'PENDING', 'SCHEDULED', 'CANCELLED'] } }],
  },
  {
    key: 'POST /api/v1.1/subscriptions/{iccid}/cancel',
    base: (live) => ({ params: { iccid: live.fixtures.noSubscriptionIccid }, query: {} }),
    call: (c, i) => c.subscriptions.cancel(p(i, 'iccid')),
    fields: [path('iccid')],
  },
  {
    key: 'GET /api/v1.1/sims/{iccid}/subscription',
    base: (live) => ({ params: { iccid: live.fixtures.physicalIccid }, query: {} }),
    call: (c, i) => c.sims.retrieveSubscription(p(i, 'iccid')),
    fields: [path('iccid')],
  },
  {
    key: 'GET /api/v1.1/plans/{planId}',
    base: (live) => ({ params: { planId: live.fixtures.pricedPlanId }, query: {} }),
    call: (c, i) => c.plans.retrieve(p(i, 'planId')),
    fields: [path('planId')],
  },
  {
    key: 'GET /api/v1.1/esim/{iccid}/qr',
    base: (live) => ({ params: { iccid: live.fixtures.esimIccid }, query: {} }),
    call: (c, i) => c.esim.retrieveQr(p(i, 'iccid')),
    fields: [path('iccid')],
  },
  {
    key: 'GET /api/v1.1/port-ins',
    base: empty,
    call: (c, i) => c.portIns.list(q(i)),
    fields: [...page, { name: 'status', in: 'query', kind: { type: 'enum', values: ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED'] } }],
  },
  { key: 'GET /api/v1.1/credit-balance', base: empty, call: (c) => c.billing.retrieveCreditBalance(), fields: [] },
  { key: 'GET /api/v1.1/team-members', base: empty, call: (c, i) => c.teamMembers.list(q(i)), fields: page },
  {
    key: 'GET /api/v1.1/team-members/{email}',
    base: (live) => ({ params: { email: live.fixtures.adminEmail }, query: {} }),
    call: (c, i) => c.teamMembers.retrieve(p(i, 'email')),
    fields: [path('email')],
  },
  {
    key: 'GET /api/v1.1/sim-groups/{name}',
    base: (live) => ({ params: { name: live.fixtures.simGroupNames[0] }, query: {} }),
    call: (c, i) => c.simGroups.retrieve(p(i, 'name')),
    fields: [path('name')],
  },
  {
    key: 'DELETE /api/v1.1/user-groups/{name}',
    base: () => ({ params: { name: 'no such group' }, query: {} }),
    call: (c, i) => c.userGroups.delete(p(i, 'name')),
    fields: [path('name')],
  },
  {
    key: 'POST /api/v1.1/devices/{imei}/assign',
    base: (live) => ({ params: { imei: live.fixtures.assignedImei }, query: {}, body: { email: 'nobody@example.com' } }),
    call: (c, i) => c.devices.assign(p(i, 'imei'), b(i)),
    fields: [path('imei'), wholeBody, { name: 'email', in: 'body', kind: { type: 'email' } }],
  },
  {
    key: 'POST /api/v1.1/sms',
    base: (live) => ({
      params: {},
      query: {},
      body: { fromNumber: live.fixtures.noOutboundSmsNumber, toNumber: '+14155550100', text: 'hello' },
    }),
    call: (c, i) => c.sms.send(b(i)),
    fields: [
      wholeBody,
      { name: 'fromNumber', in: 'body', kind: { type: 'e164' } },
      { name: 'toNumber', in: 'body', kind: { type: 'e164' } },
      { name: 'text', in: 'body', kind: { type: 'string' } },
    ],
  },
  { key: 'GET /api/v1.1/voice-quality/webhooks', base: empty, call: (c, i) => c.voiceQuality.webhooks.list(q(i)), fields: page },
  {
    key: 'POST /api/v1.1/webhooks',
    base: (live) => ({ params: {}, query: {}, body: registration(live) }),
    call: (c, i) => c.webhooks.create(b(i)),
    fields: registrationFields(true),
  },
  { key: 'GET /api/v1.1/webhooks', base: empty, call: (c, i) => c.webhooks.list(q(i)), fields: page },
  {
    key: 'GET /api/v1.1/webhooks/{id}',
    base: (live) => ({ params: { id: live.webhookId }, query: {} }),
    call: (c, i) => c.webhooks.retrieve(p(i, 'id')),
    fields: [path('id')],
  },
  {
    key: 'PUT /api/v1.1/webhooks/{id}',
    base: (live) => {
      const { update: _update, ...body } = registration(live);
      return { params: { id: live.webhookId }, query: {}, body };
    },
    call: (c, i) => c.webhooks.update(p(i, 'id'), b(i)),
    fields: [path('id'), ...registrationFields(false)],
  },
  {
    key: 'DELETE /api/v1.1/webhooks/{id}',
    base: () => ({ params: { id: 'wh_not_registered' }, query: {} }),
    call: (c, i) => c.webhooks.delete(p(i, 'id')),
    fields: [path('id')],
  },
  {
    key: 'POST /api/v1.1/webhooks/{id}/test',
    base: (live) => ({ params: { id: live.webhookId }, query: {} }),
    call: (c, i) => c.webhooks.test(p(i, 'id')),
    fields: [path('id')],
  },
  {
    key: 'GET /api/v1.1/webhook-deliveries',
    base: empty,
    call: (c, i) => c.webhooks.deliveries.list(q(i)),
    fields: [...page, { name: 'webhookId', in: 'query', kind: { type: 'string' } }, { name: 'status', in: 'query', kind: { type: 'string' } }],
  },
  {
    key: 'POST /api/v1.1/webhook-deliveries/{deliveryId}/redeliver',
    base: () => ({ params: { deliveryId: 'dlv_not_sent' }, query: {} }),
    call: (c, i) => c.webhooks.deliveries.redeliver(p(i, 'deliveryId')),
    fields: [path('deliveryId')],
  },
  {
    key: 'POST /api/v1.1/sims/{iccid}/renew-number',
    nameOnly: true,
    base: () => ({ params: { iccid: 'not-a-sim' }, query: {}, body: {} }),
    call: (c, i) => c.sims.renewNumber(p(i, 'iccid'), b(i)),
    fields: [path('iccid'), wholeBody, json('anyField')],
  },
  {
    key: 'POST /api/v1.1/plans/purchase',
    nameOnly: true,
    base: () => ({ params: {}, query: {}, body: { planId: 'No such plan', iccid: 'not-a-sim' } }),
    call: (c, i) => c.plans.purchase(b(i)),
    fields: [wholeBody, json('planId'), json('iccid'), json('anyField')],
  },
  {
    key: 'POST /api/v3/plans/purchase',
    nameOnly: true,
    base: () => ({ params: {}, query: {}, body: { planId: 'No such plan', iccid: 'not-a-sim' } }),
    call: (c, i) => c.plans.purchaseAsync(b(i)),
    fields: [wholeBody, json('planId'), json('iccid'), json('anyField')],
  },
  {
    key: 'POST /api/v1.1/esim',
    nameOnly: true,
    base: () => ({ params: {}, query: {}, body: { planId: 'No such plan', email: 'nobody@example.com' } }),
    call: (c, i) => c.esim.provision(b(i)),
    fields: [wholeBody, json('planId'), json('email'), json('anyField')],
  },
  {
    key: 'POST /api/v1.1/top-up',
    nameOnly: true,
    base: () => ({ params: {}, query: {}, body: { amount: 10, currency: 'aud', iccid: 'not-a-sim' } }),
    call: (c, i) => c.billing.topUp(b(i)),
    fields: [wholeBody, json('amount'), json('currency'), json('iccid'), json('anyField')],
  },
  {
    key: 'POST /api/v1.1/port-in/eligibility',
    nameOnly: true,
    base: () => ({ params: {}, query: {}, body: { portInNumber: '+14155550123' } }),
    call: (c, i) => c.portIns.checkEligibility(b(i)),
    fields: [wholeBody, { name: 'portInNumber', in: 'body', kind: { type: 'e164' } }, json('anyField')],
  },
  {
    key: 'POST /api/v3/port-in',
    nameOnly: true,
    base: () => ({ params: {}, query: {}, body: { portInNumber: '+14155550123', iccid: 'not-a-sim' } }),
    call: (c, i) => c.portIns.submit(b(i)),
    fields: [wholeBody, { name: 'portInNumber', in: 'body', kind: { type: 'e164' } }, json('iccid'), json('anyField')],
  },
  {
    key: 'POST /api/v1.1/team-members',
    nameOnly: true,
    base: (live) => ({ params: {}, query: {}, body: { name: 'Ada', email: live.fixtures.adminEmail, role: 'Admin' } }),
    call: (c, i) => c.teamMembers.create(b(i)),
    fields: [wholeBody, json('name'), json('email'), json('role'), json('departments'), json('anyField')],
  },
  {
    key: 'GET /api/v1.1/orders/{id}',
    nameOnly: true,
    base: (live) => ({ params: { id: live.fixtures.orderId }, query: {} }),
    call: (c, i) => c.orders.retrieve(p(i, 'id')),
    fields: [path('id')],
  },
  { key: 'GET /api/v1.1/users', nameOnly: true, base: empty, call: (c, i) => c.users.list(q(i)), fields: page },
];
