import { describe, expect, it } from 'vitest';
import type { PartnerClient } from '../../src/index.js';
import { RequestValidationError } from '../../src/index.js';
import { envelope } from '../helpers/resources-server.js';
import { useResourcesServer } from './use-server.js';

/**
 * Endpoints known by name only (spec part 4): their bodies are not shown, so the SDK requires
 * nothing, checks the fields it suggests only when they are given, and sends any other JSON field
 * as given.
 */
const use = useResourcesServer();

const accepted = { transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' };
const extra = { productCode: 'B-5', quantity: 2, options: { autoRenew: true, tags: ['a', null] }, note: null };

interface Case {
  name: string;
  method: string;
  path: string;
  status: number;
  answer: unknown;
  /** The body is typed per method; here one body goes to every method. */
  send: (client: PartnerClient, body: never) => PromiseLike<unknown>;
}

const cases: Case[] = [
  {
    name: 'sims.renewNumber',
    method: 'POST',
    path: '/api/v1.1/sims/8901/renew-number',
    status: 200,
    answer: envelope({}),
    send: (c, body) => c.sims.renewNumber('8901', body),
  },
  {
    name: 'plans.purchase',
    method: 'POST',
    path: '/api/v1.1/plans/purchase',
    status: 200,
    answer: envelope({}),
    send: (c, body) => c.plans.purchase(body),
  },
  {
    name: 'plans.purchaseAsync',
    method: 'POST',
    path: '/api/v3/plans/purchase',
    status: 202,
    answer: envelope(accepted),
    send: (c, body) => c.plans.purchaseAsync(body),
  },
  {
    name: 'esim.provision',
    method: 'POST',
    path: '/api/v1.1/esim',
    status: 202,
    answer: envelope(accepted),
    send: (c, body) => c.esim.provision(body),
  },
  {
    name: 'billing.topUp',
    method: 'POST',
    path: '/api/v1.1/top-up',
    status: 201,
    answer: envelope(accepted),
    send: (c, body) => c.billing.topUp(body),
  },
  {
    name: 'portIns.checkEligibility',
    method: 'POST',
    path: '/api/v1.1/port-in/eligibility',
    status: 200,
    answer: envelope({}),
    send: (c, body) => c.portIns.checkEligibility(body),
  },
  { name: 'portIns.submit', method: 'POST', path: '/api/v3/port-in', status: 202, answer: accepted, send: (c, body) => c.portIns.submit(body) },
  {
    name: 'teamMembers.create',
    method: 'POST',
    path: '/api/v1.1/team-members',
    status: 201,
    answer: envelope({}),
    send: (c, body) => c.teamMembers.create(body),
  },
];

describe('bodies of endpoints known by name only', () => {
  it.each(cases)('$name requires no field: an empty body is sent', async (testCase) => {
    use().server.handle(testCase.method, testCase.path, () => ({ status: testCase.status, body: testCase.answer }));
    await testCase.send(use().client, {} as never);
    expect(use().server.requests.map((request) => request.body)).toEqual([{}]);
  });

  it.each(cases)('$name sends fields it does not suggest exactly as given', async (testCase) => {
    use().server.handle(testCase.method, testCase.path, () => ({ status: testCase.status, body: testCase.answer }));
    await testCase.send(use().client, extra as never);
    expect(use().server.requests.map((request) => request.body)).toEqual([extra]);
  });

  it.each(cases)('$name refuses a value JSON cannot carry, before sending', async (testCase) => {
    const error = await Promise.resolve(testCase.send(use().client, { quantity: 2n } as never)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual(['body.quantity']);
    expect(use().server.requests).toHaveLength(0);
  });

  // The one rule the spec gives a field of these bodies: the port-in request's number is E.164 (part 2).
  const suggested: Array<[string, (c: PartnerClient) => PromiseLike<unknown>, string]> = [
    ['an eligibility number that is not E.164', (c) => c.portIns.checkEligibility({ portInNumber: '0400123456' }), 'body.portInNumber'],
    ['a port-in number that is not E.164', (c) => c.portIns.submit({ portInNumber: '0400123456' }), 'body.portInNumber'],
  ];

  // The spec types none of these (part 4 shows the bodies by name only): the server judges them.
  const untyped: Array<[string, (c: PartnerClient) => PromiseLike<unknown>, string, unknown]> = [
    ['an eSIM email that is not an address', (c) => c.esim.provision({ email: 'nobody' }), '/api/v1.1/esim', { email: 'nobody' }],
    ['a team member email that is not an address', (c) => c.teamMembers.create({ email: 'nobody' }), '/api/v1.1/team-members', { email: 'nobody' }],
    ['a blank planId', (c) => c.plans.purchase({ planId: '' }), '/api/v1.1/plans/purchase', { planId: '' }],
    ['a blank iccid on the v3 purchase', (c) => c.plans.purchaseAsync({ iccid: '' }), '/api/v3/plans/purchase', { iccid: '' }],
    ['a top-up amount of zero', (c) => c.billing.topUp({ amount: 0 }), '/api/v1.1/top-up', { amount: 0 }],
    ['an upper-case top-up currency', (c) => c.billing.topUp({ currency: 'USD' }), '/api/v1.1/top-up', { currency: 'USD' }],
    [
      'a padded team member name',
      (c) => c.teamMembers.create({ name: ' Ada ', role: 'admin' }),
      '/api/v1.1/team-members',
      { name: ' Ada ', role: 'admin' },
    ],
  ];

  it.each(untyped)('sends a suggested field the spec does not type as given: %s', async (_name, call, path, body) => {
    use().server.handle('POST', path, () => ({
      status: 202,
      body: envelope({ transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' }),
    }));
    await Promise.resolve(call(use().client)).catch(() => undefined);
    expect(use().server.requests.map((request) => request.body)).toEqual([body]);
  });

  it('accepts an internationalized email address (RFC 6531)', async () => {
    use().server.handle('POST', '/api/v1.1/esim', () => ({
      status: 202,
      body: envelope({ transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' }),
    }));
    await use().client.esim.provision({ email: 'jürgen@münchen.example' });
    expect(use().server.requests.map((request) => request.body)).toEqual([{ email: 'jürgen@münchen.example' }]);
  });

  it.each(suggested)('checks a suggested field when it is given: refuses %s', async (_name, call, path) => {
    const error = await Promise.resolve(call(use().client)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([path]);
    expect(use().server.requests).toHaveLength(0);
  });

  it('team member departments take any JSON value (their shape is not shown)', async () => {
    use().server.handle('POST', '/api/v1.1/team-members', () => ({ status: 201, body: envelope({}) }));
    const departments = [{ id: 3, name: 'Ops' }];
    await use().client.teamMembers.create({ name: 'Bo', email: 'bo@example.com', role: 'Standard Admin', departments });
    expect(use().server.requests[0]?.body).toEqual({ name: 'Bo', email: 'bo@example.com', role: 'Standard Admin', departments });
  });
});
