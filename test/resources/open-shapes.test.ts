import { describe, expect, it } from 'vitest';
import type { PartnerClient } from '../../src/index.js';
import { envelope } from '../helpers/resources-server.js';
import { useResourcesServer } from './use-server.js';

/**
 * Shapes the spec does not show stay open: each field (or answer) below is fed a shape the SDK
 * could not have guessed, and the call still resolves, the value kept exactly as sent.
 */
const use = useResourcesServer();

const meta = { page: 1, pageSize: 20, total: 1, totalPages: 1 };
const member = { name: 'Ann', email: 'ann@example.com', role: 'Standard Admin', status: 'active' };
const plan = {
  productId: 'Metered',
  description: 'd',
  price: 0,
  currency: 'usd',
  validityDays: 30,
  data: { value: 1, unit: 'GB' },
  voiceMinutes: 0,
  smsCount: 0,
  operator: 'Acme',
  network: 'AcmeNet',
  isEsim: false,
  planType: 'PAY_AS_YOU_GO',
  recurring: true,
};
const registration = { id: 'wh_1', operator: 'Acme', network: 'AcmeNet', eventType: 'sms', status: 'active' };
const accepted = { transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' };

/** Unexpected but valid JSON: every kind of value in one place. */
const odd = { nested: [{ id: 7, tags: ['a', null] }], flag: true, count: 0, text: '', nothing: null };

interface Case {
  name: string;
  method: string;
  path: string;
  answer: unknown;
  call: (client: PartnerClient) => Promise<unknown>;
  expected: unknown;
}

const cases: Case[] = [
  {
    name: 'team member departments as an array of objects (list)',
    method: 'GET',
    path: '/api/v1.1/team-members',
    answer: envelope([{ ...member, departments: [{ id: 3, name: 'Ops' }] }], meta),
    call: async (c) => (await c.teamMembers.list()).data[0]?.departments,
    expected: [{ id: 3, name: 'Ops' }],
  },
  {
    name: 'team member departments as a string (single read)',
    method: 'GET',
    path: '/api/v1.1/team-members/ann%40example.com',
    answer: envelope({ ...member, invitedAt: '2024-01-01T00:00:00.000Z', departments: 'Ops' }),
    call: async (c) => (await c.teamMembers.retrieve('ann@example.com')).departments,
    expected: 'Ops',
  },
  {
    name: 'plan tieredPricing as an array, volumeTierPricing as null',
    method: 'GET',
    path: '/api/v1.1/plans/Metered',
    answer: envelope({
      ...plan,
      tieredPricing: [
        { upTo: 5, price: 1 },
        { upTo: null, price: 0.5 },
      ],
      volumeTierPricing: null,
    }),
    call: async (c) => {
      const found = await c.plans.retrieve('Metered');
      return [found.tieredPricing, found.volumeTierPricing];
    },
    expected: [
      [
        { upTo: 5, price: 1 },
        { upTo: null, price: 0.5 },
      ],
      null,
    ],
  },
  {
    name: 'user records with fields of any JSON type',
    method: 'GET',
    path: '/api/v1.1/users',
    answer: envelope([{ email: null, name: { first: 'Bo', last: 'Li' }, id: 12, ...odd }], meta),
    call: async (c) => (await c.users.list()).data,
    expected: [{ email: null, name: { first: 'Bo', last: 'Li' }, id: 12, ...odd }],
  },
  {
    name: 'an order record with fields of any JSON type',
    method: 'GET',
    path: '/api/v1.1/orders/42',
    answer: envelope({ id: 42, orderId: null, status: { code: 'SHIPPED' }, ...odd }),
    call: (c) => c.orders.retrieve('42'),
    expected: { id: 42, orderId: null, status: { code: 'SHIPPED' }, ...odd },
  },
  {
    name: 'authentication members of basic and api_key registrations',
    method: 'GET',
    path: '/api/v1.1/webhooks',
    answer: envelope([
      { ...registration, authentication: { type: 'basic', username: { masked: true }, password: 0, token: null } },
      { ...registration, id: 'wh_2', authentication: { type: 'api_key', key: ['***ENCRYPTED***'], headerName: null } },
    ]),
    call: async (c) => (await c.webhooks.list()).data.map((r) => r.authentication),
    expected: [
      { type: 'basic', username: { masked: true }, password: 0, token: null },
      { type: 'api_key', key: ['***ENCRYPTED***'], headerName: null },
    ],
  },
  {
    name: 'the synchronous purchase answer with unguessed field types',
    method: 'POST',
    path: '/api/v1.1/plans/purchase',
    answer: envelope({ orderId: 123, amount: '5.00', status: null, ...odd }),
    call: (c) => c.plans.purchase({}),
    expected: { orderId: 123, amount: '5.00', status: null, ...odd },
  },
  {
    name: 'the renew-number answer with unguessed field types',
    method: 'POST',
    path: '/api/v1.1/sims/8901/renew-number',
    answer: envelope({ phoneNumber: { e164: '+14155550100' }, iccid: 8901 }),
    call: (c) => c.sims.renewNumber('8901'),
    expected: { phoneNumber: { e164: '+14155550100' }, iccid: 8901 },
  },
  {
    name: 'the eligibility answer with unguessed field types',
    method: 'POST',
    path: '/api/v1.1/port-in/eligibility',
    answer: envelope({ eligible: 'yes', reason: ['carrier lock'] }),
    call: (c) => c.portIns.checkEligibility({ portInNumber: '+14155550100' }),
    expected: { eligible: 'yes', reason: ['carrier lock'] },
  },
  {
    name: 'the team member create answer without email',
    method: 'POST',
    path: '/api/v1.1/team-members',
    answer: envelope({ invitationId: 5, email: null }),
    call: (c) => c.teamMembers.create({ email: 'bo@example.com' }),
    expected: { invitationId: 5, email: null },
  },
  {
    name: 'the webhook deletion answer with unguessed field types',
    method: 'DELETE',
    path: '/api/v1.1/webhooks/wh_1',
    answer: envelope({ id: 1, deleted: 'true', status: { done: true } }),
    call: (c) => c.webhooks.delete('wh_1'),
    expected: { id: 1, deleted: 'true', status: { done: true } },
  },
];

describe('shapes the spec does not show accept any JSON value', () => {
  it.each(cases)('$name', async (testCase) => {
    use().server.handle(testCase.method, testCase.path, () => ({ body: testCase.answer }));
    await expect(testCase.call(use().client)).resolves.toEqual(testCase.expected);
  });
});

describe('transaction results that are not shown accept any JSON value', () => {
  const completed = (result: unknown) => envelope({ transactionId: 'tx_1', status: 'COMPLETED', result });
  const results: Array<[string, unknown]> = [
    ['an array', [1, 'two', { three: 3 }]],
    ['a string', 'done'],
    ['a number', 42],
    ['a boolean', false],
    ['an object of odd fields', odd],
  ];

  it.each(results)('top-up, v3 purchase, port-in and a wait by id resolve with %s', async (_kind, result) => {
    const { server, client } = use();
    server.handle('GET', '/api/v3/transactions/tx_1', () => ({ body: completed(result) }));
    server.handle('POST', '/api/v1.1/top-up', () => ({ status: 201, body: envelope(accepted) }));
    server.handle('POST', '/api/v3/plans/purchase', () => ({ status: 202, body: envelope(accepted) }));
    server.handle('POST', '/api/v3/port-in', () => ({ status: 202, body: accepted }));

    const handles = [await client.billing.topUp({}), await client.plans.purchaseAsync({}), await client.portIns.submit({})];
    for (const handle of handles) await expect(handle.wait()).resolves.toMatchObject({ status: 'COMPLETED', result });
    await expect(client.transactions.wait('tx_1')).resolves.toMatchObject({ result });
    await expect(client.transactions.retrieve('tx_1')).resolves.toMatchObject({ result });
  });
});
