/**
 * Nothing the caller wrote is rewritten (docs/shapes.md): every write, and the list filters, sent
 * with padded and oddly-cased values, in an unusual member order, reaches the server byte for
 * byte as the caller wrote it. A local server records the raw request bytes; its answers need not
 * satisfy the client, only the bytes it received are compared.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';

interface Received {
  method: string;
  target: string;
  body: string;
}

let server: Server;
let client: PartnerClient;
const received: Received[] = [];

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request).then((body) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/api/v1.1/auth/token') {
        const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
        response.end(JSON.stringify({ success: true, data: { access_token: 't', token_type: 'Bearer', expires_in: 3600, expires_at: expiresAt } }));
        return;
      }
      received.push({ method: request.method ?? '', target: request.url ?? '', body });
      response.end(JSON.stringify({ success: true, data: {} }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new PartnerClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key: 'k',
    secret: 's',
    rateLimit: false,
    maxRetries: 0,
  });
});

afterAll(async () => {
  await client?.destroy();
  await new Promise((resolve) => server?.close(resolve));
});

/** Runs the call (its answer may fail the client's checks) and returns the one request the server got. */
async function sent(call: () => PromiseLike<unknown>): Promise<Received> {
  received.length = 0;
  await Promise.resolve(call()).then(
    () => undefined,
    () => undefined,
  );
  expect(received).toHaveLength(1);
  return received[0] as Received;
}

const PADDED = ' Telstra ';
const ODD_CASE = 'tElStRa 5g';

interface Write {
  name: string;
  call: (client: PartnerClient) => PromiseLike<unknown>;
  method: string;
  target: string;
  /** The body the caller wrote; undefined when the call sends none. */
  body?: unknown;
}

const registration = {
  update: true,
  network: ODD_CASE,
  operator: PADDED,
  webhookUrls: { voiceUrl: 'HTTPS://Example.COM/Voice', messageUrl: 'http://example.com/Message?Q=A%20B' },
  eventType: 'voice',
  retryPolicy: { maxDelaySeconds: 600, maxAttempts: 2 },
  authentication: { password: ' p ', type: 'basic', username: ' U ' },
} as const;

const WRITES: Write[] = [
  { name: 'webhooks.create', call: (c) => c.webhooks.create(registration), method: 'POST', target: '/api/v1.1/webhooks', body: registration },
  {
    name: 'webhooks.update',
    call: (c) =>
      c.webhooks.update(' wh_1 ', {
        network: ` ${ODD_CASE}`,
        operator: PADDED,
        authentication: { key: ' K ', type: 'api_key', headerName: 'x-API-key' },
      }),
    method: 'PUT',
    target: '/api/v1.1/webhooks/%20wh_1%20',
    body: { network: ` ${ODD_CASE}`, operator: PADDED, authentication: { key: ' K ', type: 'api_key', headerName: 'x-API-key' } },
  },
  { name: 'webhooks.delete', call: (c) => c.webhooks.delete('WH_1 '), method: 'DELETE', target: '/api/v1.1/webhooks/WH_1%20' },
  {
    name: 'webhooks.test',
    call: (c) => c.webhooks.test(' wh'),
    method: 'POST',
    target: '/api/v1.1/webhooks/%20wh/test',
    body: { eventType: 'webhook.test' },
  },
  {
    name: 'webhooks.deliveries.redeliver',
    call: (c) => c.webhooks.deliveries.redeliver(' Dlv '),
    method: 'POST',
    target: '/api/v1.1/webhook-deliveries/%20Dlv%20/redeliver',
  },
  {
    name: 'teamMembers.create',
    call: (c) => c.teamMembers.create({ role: ' admin ', email: 'Jürgen.X@München.Example', name: '  Ada  ', departments: [' Sales '] }),
    method: 'POST',
    target: '/api/v1.1/team-members',
    body: { role: ' admin ', email: 'Jürgen.X@München.Example', name: '  Ada  ', departments: [' Sales '] },
  },
  {
    name: 'esim.provision',
    call: (c) => c.esim.provision({ email: 'USER@Example.COM', planId: ' business 5gb ' }),
    method: 'POST',
    target: '/api/v1.1/esim',
    body: { email: 'USER@Example.COM', planId: ' business 5gb ' },
  },
  {
    name: 'billing.topUp',
    call: (c) => c.billing.topUp({ iccid: ' 8961 ', currency: ' AUD ', amount: 10.5 }),
    method: 'POST',
    target: '/api/v1.1/top-up',
    body: { iccid: ' 8961 ', currency: ' AUD ', amount: 10.5 },
  },
  {
    name: 'plans.purchase',
    call: (c) => c.plans.purchase({ iccid: ' 8961 ', planId: 'business 5GB ' }),
    method: 'POST',
    target: '/api/v1.1/plans/purchase',
    body: { iccid: ' 8961 ', planId: 'business 5GB ' },
  },
  {
    name: 'plans.purchaseAsync',
    call: (c) => c.plans.purchaseAsync({ iccid: ' 8961 ', planId: 'business 5GB ' }),
    method: 'POST',
    target: '/api/v3/plans/purchase',
    body: { iccid: ' 8961 ', planId: 'business 5GB ' },
  },
  {
    name: 'portIns.checkEligibility',
    call: (c) => c.portIns.checkEligibility({ operator: PADDED, portInNumber: '+14155550100' }),
    method: 'POST',
    target: '/api/v1.1/port-in/eligibility',
    body: { operator: PADDED, portInNumber: '+14155550100' },
  },
  {
    name: 'portIns.submit',
    call: (c) => c.portIns.submit({ iccid: ' 8961 ', portInNumber: '+14155550100' }),
    method: 'POST',
    target: '/api/v3/port-in',
    body: { iccid: ' 8961 ', portInNumber: '+14155550100' },
  },
  {
    name: 'sms.send',
    call: (c) => c.sms.send({ text: '  Hello, WORLD  ', toNumber: '+14155550101', fromNumber: '+14155550100' }),
    method: 'POST',
    target: '/api/v1.1/sms',
    body: { text: '  Hello, WORLD  ', toNumber: '+14155550101', fromNumber: '+14155550100' },
  },
  {
    name: 'devices.assign',
    call: (c) => c.devices.assign(' 35-2099 ', { email: 'Ada.Lovelace@Example.COM' }),
    method: 'POST',
    target: '/api/v1.1/devices/%2035-2099%20/assign',
    body: { email: 'Ada.Lovelace@Example.COM' },
  },
  {
    name: 'sims.renewNumber (a body)',
    call: (c) => c.sims.renewNumber('8961 ', { reason: ' Lost ', keep: false }),
    method: 'POST',
    target: '/api/v1.1/sims/8961%20/renew-number',
    body: { reason: ' Lost ', keep: false },
  },
  { name: 'sims.renewNumber (no body)', call: (c) => c.sims.renewNumber('8961'), method: 'POST', target: '/api/v1.1/sims/8961/renew-number' },
  { name: 'subscriptions.cancel', call: (c) => c.subscriptions.cancel(' 8961'), method: 'POST', target: '/api/v1.1/subscriptions/%208961/cancel' },
  {
    name: 'userGroups.delete',
    call: (c) => c.userGroups.delete(' Sales/East '),
    method: 'DELETE',
    target: '/api/v1.1/user-groups/%20Sales%2FEast%20',
  },
];

describe('what the caller wrote is what the server receives', () => {
  it.each(WRITES)('$name sends its path and body byte for byte', async (write) => {
    const request = await sent(() => write.call(client));
    expect(request.method).toBe(write.method);
    expect(request.target).toBe(write.target);
    expect(request.body).toBe(write.body === undefined ? '' : JSON.stringify(write.body));
  });

  it('sends the list filters as written', async () => {
    const sims = await sent(() => client.sims.list({ search: '  Optus 5G ', assignedTo: 'Jürgen@München.Example', pageSize: 5 }));
    expect(Object.fromEntries(new URL(sims.target, 'http://x').searchParams)).toEqual({
      search: '  Optus 5G ',
      assignedTo: 'Jürgen@München.Example',
      pageSize: '5',
    });
    const deliveries = await sent(() => client.webhooks.deliveries.list({ status: ' failed ', webhookId: ' WH ' }));
    expect(Object.fromEntries(new URL(deliveries.target, 'http://x').searchParams)).toEqual({ status: ' failed ', webhookId: ' WH ' });
  });

  it('refuses a value it cannot send as written, naming the field', async () => {
    await expect(client.sims.list({ search: 'a\ud800b' })).rejects.toMatchObject({ name: 'RequestValidationError', issues: [{ path: 'search' }] });
    await expect(client.billing.topUp({ amount: Number.NaN })).rejects.toMatchObject({
      name: 'RequestValidationError',
      issues: [{ path: 'body.amount' }],
    });
  });
});
