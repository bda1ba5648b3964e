import { describe, expect, it } from 'vitest';
import type { PartnerClient } from '../../src/index.js';
import { RequestValidationError, ResponseValidationError } from '../../src/index.js';
import { type SeenRequest, envelope, makeSims } from '../helpers/resources-server.js';
import { useResourcesServer } from './use-server.js';

const use = useResourcesServer();

const meta = { page: 1, pageSize: 20, total: 1, totalPages: 1 };
const sim = makeSims(1)[0];
const subscription = {
  iccid: '8901',
  productName: 'Travel 5GB',
  status: 'ACTIVE',
  startDate: '2024-01-01T00:00:00.000Z',
  endDate: '2024-02-01T00:00:00.000Z',
  autoTopUp: false,
  operator: 'Acme',
  network: 'AcmeNet',
};
const plan = {
  productId: 'Travel 5GB',
  description: 'd',
  price: 5,
  currency: 'usd',
  validityDays: 30,
  data: { value: 5, unit: 'GB' },
  voiceMinutes: 0,
  smsCount: 0,
  operator: 'Acme',
  network: 'AcmeNet',
  isEsim: true,
  planType: 'FLAT_RATE',
  recurring: false,
};
const member = { name: 'Ann', email: 'ann+ops@example.com', role: 'Admin', status: 'active' };
const registration = { id: 'wh_1', operator: 'Acme', network: 'AcmeNet', eventType: 'sms', status: 'active' };
const delivery = { deliveryId: 'dl_1', webhookId: 'wh_1', eventType: 'sms', status: 'PENDING', attempt: 1 };
const accepted = { transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' };

interface Case {
  name: string;
  call: (client: PartnerClient) => PromiseLike<unknown>;
  method: string;
  path: string;
  status?: number;
  answer: unknown;
  query?: Record<string, string>;
  body?: unknown;
  bearer?: boolean;
  idempotent?: boolean;
  /** What the call resolves to, when not the answer's data itself. */
  check?: (result: unknown) => void;
}

const cases: Case[] = [
  {
    name: 'sims.list',
    call: (c) => c.sims.list({ page: 2, pageSize: 5, status: 'EXPIRED' }),
    method: 'GET',
    path: '/api/v1.1/sims',
    answer: envelope([sim], meta),
    query: { page: '2', pageSize: '5', status: 'EXPIRED' },
    check: (page) => expect((page as { data: unknown }).data).toEqual([sim]),
  },
  {
    name: 'sims.retrieveSubscription',
    call: (c) => c.sims.retrieveSubscription('8901'),
    method: 'GET',
    path: '/api/v1.1/sims/8901/subscription',
    answer: envelope({ ...subscription, planCode: 'T5', scheduledDate: null, orderId: 'o1' }),
  },
  {
    name: 'sims.renewNumber',
    call: (c) => c.sims.renewNumber('8901'),
    method: 'POST',
    path: '/api/v1.1/sims/8901/renew-number',
    answer: envelope({ iccid: '8901', phoneNumber: '+14155550199' }),
  },
  {
    name: 'subscriptions.list',
    call: (c) => c.subscriptions.list({ status: 'CANCELLED' }),
    method: 'GET',
    path: '/api/v1.1/subscriptions',
    answer: envelope([subscription], meta),
    query: { status: 'CANCELLED' },
    check: (page) => expect((page as { data: unknown }).data).toEqual([subscription]),
  },
  {
    name: 'subscriptions.cancel',
    call: (c) => c.subscriptions.cancel('8901'),
    method: 'POST',
    path: '/api/v1.1/subscriptions/8901/cancel',
    status: 201,
    answer: envelope({ iccid: '8901', status: 'CANCEL_SCHEDULED', cancelledDate: '2024-02-01T00:00:00.000Z' }),
    idempotent: true,
  },
  {
    name: 'plans.retrieve',
    call: (c) => c.plans.retrieve('Travel 5GB'),
    method: 'GET',
    path: '/api/v1.1/plans/Travel%205GB',
    answer: envelope(plan),
  },
  {
    name: 'plans.purchase',
    call: (c) => c.plans.purchase({ planId: 'Travel 5GB', iccid: '8901' }),
    method: 'POST',
    path: '/api/v1.1/plans/purchase',
    answer: envelope({ orderId: 'o1' }),
    body: { planId: 'Travel 5GB', iccid: '8901' },
  },
  {
    name: 'plans.purchaseAsync',
    call: (c) => c.plans.purchaseAsync({ planId: 'p', iccid: '8901' }),
    method: 'POST',
    path: '/api/v3/plans/purchase',
    status: 202,
    answer: envelope(accepted),
    body: { planId: 'p', iccid: '8901' },
    idempotent: true,
    check: (handle) => expect(handle).toMatchObject(accepted),
  },
  {
    name: 'esim.retrieveQr',
    call: (c) => c.esim.retrieveQr('8901'),
    method: 'GET',
    path: '/api/v1.1/esim/8901/qr',
    answer: envelope({ iccid: '8901', qrCodeUrl: 'https://x/qr.png', activationCode: null }),
  },
  {
    name: 'esim.provision',
    call: (c) => c.esim.provision({ planId: 'p' }),
    method: 'POST',
    path: '/api/v1.1/esim',
    status: 202,
    answer: envelope(accepted),
    body: { planId: 'p' },
    idempotent: true,
    check: (handle) => expect(handle).toMatchObject(accepted),
  },
  {
    name: 'portIns.list',
    call: (c) => c.portIns.list({ status: 'IN_PROGRESS' }),
    method: 'GET',
    path: '/api/v1.1/port-ins',
    answer: envelope([{ portInNumber: '+14155550100', status: 'IN_PROGRESS', iccid: '8901', submittedAt: '2024-01-01T00:00:00.000Z' }], meta),
    query: { status: 'IN_PROGRESS' },
    check: (page) => expect((page as { data: unknown[] }).data).toHaveLength(1),
  },
  {
    name: 'portIns.checkEligibility',
    call: (c) => c.portIns.checkEligibility({ portInNumber: '+14155550100' }),
    method: 'POST',
    path: '/api/v1.1/port-in/eligibility',
    answer: envelope({ eligible: true }),
    body: { portInNumber: '+14155550100' },
    bearer: false,
  },
  {
    name: 'portIns.submit',
    call: (c) => c.portIns.submit({ portInNumber: '+14155550100', iccid: '8901' }),
    method: 'POST',
    path: '/api/v3/port-in',
    status: 202,
    answer: accepted,
    body: { portInNumber: '+14155550100', iccid: '8901' },
    idempotent: true,
    check: (handle) => expect(handle).toMatchObject(accepted),
  },
  {
    name: 'billing.retrieveCreditBalance',
    call: (c) => c.billing.retrieveCreditBalance(),
    method: 'GET',
    path: '/api/v1.1/credit-balance',
    answer: envelope({ creditBalance: [{ currency: 'usd', amount: 12.5 }] }),
  },
  {
    name: 'billing.topUp',
    call: (c) => c.billing.topUp({ amount: 20, currency: 'usd' }),
    method: 'POST',
    path: '/api/v1.1/top-up',
    status: 201,
    answer: envelope(accepted),
    body: { amount: 20, currency: 'usd' },
    idempotent: true,
    check: (handle) => expect(handle).toMatchObject(accepted),
  },
  {
    name: 'teamMembers.list',
    call: (c) => c.teamMembers.list({ pageSize: 50 }),
    method: 'GET',
    path: '/api/v1.1/team-members',
    answer: envelope([{ ...member, departments: ['ops'] }], meta),
    query: { pageSize: '50' },
    check: (page) => expect((page as { data: unknown[] }).data).toEqual([{ ...member, departments: ['ops'] }]),
  },
  {
    name: 'teamMembers.retrieve',
    call: (c) => c.teamMembers.retrieve('ann+ops@example.com'),
    method: 'GET',
    path: '/api/v1.1/team-members/ann%2Bops%40example.com',
    answer: envelope({ ...member, invitedAt: '2024-01-01T00:00:00.000Z' }),
  },
  {
    name: 'teamMembers.create',
    call: (c) => c.teamMembers.create({ email: 'bo@example.com', name: 'Bo', role: 'Admin' }),
    method: 'POST',
    path: '/api/v1.1/team-members',
    status: 201,
    answer: envelope({ email: 'bo@example.com', name: 'Bo', role: 'Admin', status: 'invited' }),
    body: { email: 'bo@example.com', name: 'Bo', role: 'Admin' },
  },
  {
    name: 'simGroups.retrieve',
    call: (c) => c.simGroups.retrieve('Fleet/EU ..ü'),
    method: 'GET',
    path: '/api/v1.1/sim-groups/Fleet%2FEU%20..%C3%BC',
    answer: envelope({ name: 'Fleet/EU ..ü', spendLimit: 100, dataQuota: 10, currency: 'eur', dataUnit: 'GB' }),
  },
  {
    name: 'userGroups.delete',
    call: (c) => c.userGroups.delete('..'),
    method: 'DELETE',
    path: '/api/v1.1/user-groups/%2E%2E',
    answer: envelope({ name: '..', status: 'DELETED' }),
    idempotent: true,
  },
  {
    name: 'devices.assign',
    call: (c) => c.devices.assign('356938035643809', { email: 'emp@example.com' }),
    method: 'POST',
    path: '/api/v1.1/devices/356938035643809/assign',
    answer: envelope({ imei: '356938035643809', assignedTo: { name: 'Emp', email: 'emp@example.com' } }),
    body: { email: 'emp@example.com' },
    idempotent: true,
  },
  {
    name: 'sms.send',
    call: (c) => c.sms.send({ fromNumber: '+14155550100', toNumber: '+442071838750', text: 'hi' }),
    method: 'POST',
    path: '/api/v1.1/sms',
    status: 201,
    answer: envelope({ message: 'queued' }),
    body: { fromNumber: '+14155550100', toNumber: '+442071838750', text: 'hi' },
    idempotent: true,
  },
  {
    name: 'voiceQuality.webhooks.list',
    call: (c) => c.voiceQuality.webhooks.list({ page: 1 }),
    method: 'GET',
    path: '/api/v1.1/voice-quality/webhooks',
    answer: envelope([{ id: 'vqwh_1', url: 'https://x', events: ['voice.test.completed'], status: 'active', createdAt: 't', updatedAt: 't' }], meta),
    query: { page: '1' },
    check: (page) => expect((page as { data: unknown[] }).data).toHaveLength(1),
  },
  {
    name: 'webhooks.create',
    call: (c) =>
      c.webhooks.create({
        operator: 'Acme',
        network: 'AcmeNet',
        eventType: 'sms',
        webhookUrls: { messageUrl: 'https://p/sms', voiceStreamUrl: 'wss://p/stream' },
        retryPolicy: { maxAttempts: 5 },
      }),
    method: 'POST',
    path: '/api/v1.1/webhooks',
    status: 201,
    answer: envelope({ ...registration, signingSecret: `whsec_${'a'.repeat(64)}` }),
    body: {
      operator: 'Acme',
      network: 'AcmeNet',
      eventType: 'sms',
      webhookUrls: { messageUrl: 'https://p/sms', voiceStreamUrl: 'wss://p/stream' },
      retryPolicy: { maxAttempts: 5 },
    },
  },
  {
    name: 'webhooks.list',
    call: (c) => c.webhooks.list({ pageSize: 2 }),
    method: 'GET',
    path: '/api/v1.1/webhooks',
    answer: envelope([registration], meta),
    query: { pageSize: '2' },
    check: (page) => expect((page as { data: unknown[] }).data).toEqual([registration]),
  },
  {
    name: 'webhooks.retrieve',
    call: (c) => c.webhooks.retrieve('wh_1'),
    method: 'GET',
    path: '/api/v1.1/webhooks/wh_1',
    answer: envelope(registration),
  },
  {
    name: 'webhooks.update',
    call: (c) => c.webhooks.update('wh_1', { eventType: 'both' }),
    method: 'PUT',
    path: '/api/v1.1/webhooks/wh_1',
    answer: envelope({ ...registration, eventType: 'both' }),
    body: { eventType: 'both' },
  },
  {
    name: 'webhooks.delete',
    call: (c) => c.webhooks.delete('wh_1'),
    method: 'DELETE',
    path: '/api/v1.1/webhooks/wh_1',
    answer: envelope({ id: 'wh_1', deleted: true }),
  },
  {
    name: 'webhooks.test',
    call: (c) => c.webhooks.test('wh_1'),
    method: 'POST',
    path: '/api/v1.1/webhooks/wh_1/test',
    answer: envelope({ ...delivery, eventType: 'webhook.test', status: 'DELIVERED' }),
    body: { eventType: 'webhook.test' },
  },
  {
    name: 'webhooks.deliveries.list',
    call: (c) => c.webhooks.deliveries.list({ webhookId: 'wh_1', status: 'FAILED' }),
    method: 'GET',
    path: '/api/v1.1/webhook-deliveries',
    answer: envelope([delivery]),
    query: { webhookId: 'wh_1', status: 'FAILED' },
    check: (page) => expect((page as { data: unknown }).data).toEqual([delivery]),
  },
  {
    name: 'webhooks.deliveries.redeliver',
    call: (c) => c.webhooks.deliveries.redeliver('dl_1'),
    method: 'POST',
    path: '/api/v1.1/webhook-deliveries/dl_1/redeliver',
    status: 202,
    answer: envelope({ ...delivery, deliveryId: 'dl_2' }),
  },
  {
    name: 'transactions.retrieve',
    call: (c) => c.transactions.retrieve('tx/1'),
    method: 'GET',
    path: '/api/v3/transactions/tx%2F1',
    answer: envelope({ transactionId: 'tx/1', status: 'PENDING' }),
    bearer: false,
  },
  {
    name: 'orders.retrieve',
    call: (c) => c.orders.retrieve('o 1'),
    method: 'GET',
    path: '/api/v1.1/orders/o%201',
    answer: envelope({ id: 'o 1', total: 5 }),
  },
  {
    name: 'users.list',
    call: (c) => c.users.list({ pageSize: 2 }),
    method: 'GET',
    path: '/api/v1.1/users',
    answer: envelope([{ email: 'emp@example.com', department: 'ops' }], meta),
    query: { pageSize: '2' },
    check: (page) => expect((page as { data: unknown[] }).data).toEqual([{ email: 'emp@example.com', department: 'ops' }]),
  },
];

describe('every resource method', () => {
  it.each(cases)('$name sends the documented request and unwraps the answer', async (testCase) => {
    use().server.handle(testCase.method, testCase.path, () => ({ status: testCase.status ?? 200, body: testCase.answer }));
    const result = await testCase.call(use().client);
    expect(use().server.requests).toHaveLength(1);
    const seen = use().server.requests[0] as SeenRequest;
    expect(seen.method).toBe(testCase.method);
    expect(seen.path).toBe(testCase.path);
    expect(seen.query).toEqual(testCase.query ?? {});
    expect(seen.body).toEqual(testCase.body);
    expect(seen.headers.authorization).toBe(testCase.bearer === false ? undefined : 'Bearer test-token');
    expect(typeof seen.headers['idempotency-key'] === 'string').toBe(testCase.idempotent === true);
    if (testCase.check) testCase.check(result);
    else expect(result).toEqual((testCase.answer as { data: unknown }).data);
  });
});

describe('request validation', () => {
  const refused: Array<[string, (c: PartnerClient) => PromiseLike<unknown>, string[]]> = [
    ['blank iccid', (c) => c.sims.retrieveSubscription(''), ['iccid']],
    ['blank email', (c) => c.teamMembers.retrieve(' '), ['email']],
    ['unknown SIM status filter', (c) => c.sims.list({ status: 'active' as 'ACTIVE' }), ['status']],
    ['unknown subscription filter', (c) => c.subscriptions.list({ status: 'CANCEL_SCHEDULED' as 'ACTIVE' }), ['status']],
    ['unknown list parameter', (c) => c.sims.list({ pagesize: 10 } as never), ['']],
    [
      'sms without text and with a local number',
      (c) => c.sms.send({ fromNumber: '0415555', toNumber: '+14155550100' } as never),
      ['body.fromNumber', 'body.text'],
    ],
    ['device assign without a valid email', (c) => c.devices.assign('356938035643809', { email: 'not-an-email' }), ['body.email']],
    ['webhook without operator and network', (c) => c.webhooks.create({ eventType: 'sms' } as never), ['body.operator', 'body.network']],
    ['webhook with an unknown eventType', (c) => c.webhooks.create({ operator: 'A', network: 'B', eventType: 'mms' as 'sms' }), ['body.eventType']],
    [
      'webhook message URL over ftp',
      (c) => c.webhooks.create({ operator: 'A', network: 'B', eventType: 'sms', webhookUrls: { messageUrl: 'ftp://x' } }),
      ['body.webhookUrls.messageUrl'],
    ],
    [
      'voice stream URL over ftp',
      (c) => c.webhooks.update('wh_1', { webhookUrls: { voiceStreamUrl: 'ftp://x' } }),
      ['body.webhookUrls.voiceStreamUrl'],
    ],
    [
      'retry policy out of bounds',
      (c) =>
        c.webhooks.create({
          operator: 'A',
          network: 'B',
          eventType: 'voice',
          retryPolicy: { maxAttempts: 11, initialDelaySeconds: 0, maxDelaySeconds: 59, backoffStrategy: 'random' as 'fixed' },
        }),
      [
        'body.retryPolicy.maxAttempts',
        'body.retryPolicy.backoffStrategy',
        'body.retryPolicy.initialDelaySeconds',
        'body.retryPolicy.maxDelaySeconds',
      ],
    ],
    [
      'unknown authentication type',
      (c) => c.webhooks.create({ operator: 'A', network: 'B', eventType: 'sms', authentication: { type: 'oauth' as 'none' } }),
      ['body.authentication.type'],
    ],
    ['port-in number not E.164', (c) => c.portIns.checkEligibility({ portInNumber: '4155550100' }), ['body.portInNumber']],
    ['unknown assigned-status filter', (c) => c.sims.list({ assignedStatus: 'assigned' as 'ASSIGNED' }), ['assignedStatus']],
    ['unknown port-in status filter', (c) => c.portIns.list({ status: 'DONE' as 'COMPLETED' }), ['status']],
    ['page size over 100 on team members', (c) => c.teamMembers.list({ pageSize: 101 }), ['pageSize']],
    ['page 0 of voice quality webhooks', (c) => c.voiceQuality.webhooks.list({ page: 0 }), ['page']],
    [
      'sms to a number that is not E.164, with empty text',
      (c) => c.sms.send({ fromNumber: '+14155550100', toNumber: '+0123', text: '' }),
      ['body.toNumber', 'body.text'],
    ],
    ['device assign without an email', (c) => c.devices.assign('356938035643809', {} as never), ['body.email']],
    ['blank imei', (c) => c.devices.assign('', { email: 'emp@example.com' }), ['imei']],
    [
      'webhook create with update not a boolean',
      (c) => c.webhooks.create({ operator: 'A', network: 'B', eventType: 'sms', update: 'yes' as unknown as boolean }),
      ['body.update'],
    ],
    [
      'retry policy with a fractional delay',
      (c) => c.webhooks.update('wh_1', { retryPolicy: { initialDelaySeconds: 1.5 } }),
      ['body.retryPolicy.initialDelaySeconds'],
    ],
    [
      'port-in submit with a number that is not E.164',
      (c) => c.portIns.submit({ portInNumber: '04155550100', iccid: '8901' }),
      ['body.portInNumber'],
    ],
    ['top-up with an amount JSON cannot carry', (c) => c.billing.topUp({ amount: Number.NaN }), ['body.amount']],
  ];

  it.each(refused)('refuses %s before sending', async (_name, call, paths) => {
    const error = await Promise.resolve(call(use().client)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path).sort()).toEqual([...paths].sort());
    expect((error as RequestValidationError).message).toContain(paths[0]);
    expect(use().server.requests).toHaveLength(0);
  });

  it('says a missing field is required, in words', async () => {
    const error = await use()
      .client.sms.send({ fromNumber: '+14155550100', toNumber: '+14155550101' } as never)
      .catch((caught: unknown) => caught);
    expect((error as RequestValidationError).issues).toEqual([{ path: 'body.text', message: 'is required' }]);
    expect((error as RequestValidationError).message).toBe('POST /api/v1.1/sms: invalid request: body.text: is required');
  });

  it('users.list passes filters it does not know through, but still checks pagination', async () => {
    use().server.handle('GET', '/api/v1.1/users', () => ({ body: envelope([], meta) }));
    await use().client.users.list({ department: 'Sales' });
    expect(use().server.requests[0]?.query).toEqual({ department: 'Sales' });
    await expect(use().client.users.list({ pageSize: 500 })).rejects.toBeInstanceOf(RequestValidationError);
  });

  it('accepts ws:// and http:// for the voice stream URL', async () => {
    use().server.handle('PUT', '/api/v1.1/webhooks/wh_1', () => ({ body: envelope(registration) }));
    await use().client.webhooks.update('wh_1', { webhookUrls: { voiceStreamUrl: 'ws://p/stream' } });
    await use().client.webhooks.update('wh_1', { webhookUrls: { voiceStreamUrl: 'http://p/stream' } });
    expect(use().server.requests).toHaveLength(2);
  });
});

describe('forward compatibility', () => {
  it('keeps unknown fields and accepts an unknown enum value', async () => {
    use().server.handle('GET', '/api/v1.1/sims', () => ({
      body: envelope([{ ...sim, status: 'SUSPENDED', roaming: { zone: 2 } }], meta),
    }));
    const page = await use().client.sims.list();
    expect(page.data[0]?.status).toBe('SUSPENDED');
    // Kept at runtime; the type names the declared fields only, so the read goes through a cast.
    expect((page.data[0] as Record<string, unknown> | undefined)?.['roaming']).toEqual({ zone: 2 });
  });

  it('a response that breaks the schema is a ResponseValidationError naming the path', async () => {
    use().server.handle('GET', '/api/v1.1/plans/p', () => ({ body: envelope({ ...plan, price: 'five' }) }));
    const error = await use()
      .client.plans.retrieve('p')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.path)).toContain('price');
  });
});
