/**
 * Every endpoint of spec part 4, those known by name only included, with a valid request and the
 * answer the sandbox documents for it. The endpoint tests, the rate-limit tests and the
 * idempotency tests all walk this one table.
 */
import type { SandboxFixtures } from '../../src/sandbox/index.js';
import { call, type Answer, type SandboxSession } from './helpers.js';

export interface Ids {
  fixtures: SandboxFixtures;
  webhookId: string;
  deliveryId: string;
  transactionId: string;
}

export interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The spec's template, also the rate-limit key (`POST /api/v1.1/sms`). */
  template: string;
  path(ids: Ids): string;
  body?(ids: Ids): unknown;
  status: number;
  /** What `data` is: one object with these keys, a page of items with these keys (every list pages, spec part 1 rule 5), or an error code. */
  answer: { object: string[] } | { page: string[] } | { bare: string[] } | { error: string };
  /** No bearer needed (spec part 5 rule 4, and the exchange itself). */
  open?: true;
  /** Admin tier only (spec part 5 rule 5, part 1 rule 8). */
  admin?: true;
  /** Marked (idem) in spec part 4, or an async write; the counter its side effect bumps. */
  idempotent?: string;
  /** Spec part 8's per-endpoint limit per window. */
  limit?: number;
}

/** The members of a SIM (spec part 2), sorted. */
export const SIM = [
  'assignedStatus',
  'assignedTo',
  'createdAt',
  'device',
  'group',
  'iccid',
  'isEsim',
  'network',
  'operator',
  'operatorStatus',
  'phoneNumber',
  'status',
];
const SUBSCRIPTION = ['autoTopUp', 'endDate', 'iccid', 'network', 'operator', 'productName', 'startDate', 'status'];
const PLAN = [
  'currency',
  'data',
  'description',
  'isEsim',
  'network',
  'operator',
  'planType',
  'price',
  'productId',
  'recurring',
  'smsCount',
  'validityDays',
  'voiceMinutes',
];
const REGISTRATION = ['authentication', 'createdAt', 'eventType', 'id', 'network', 'operator', 'retryPolicy', 'status', 'updatedAt', 'webhookUrls'];
const DELIVERY = ['attempt', 'createdAt', 'deliveredAt', 'deliveryId', 'eventType', 'responseCode', 'status', 'webhookId'];
const TRANSACTION = [
  'createdAt',
  'message',
  'processingCompletedAt',
  'processingStartedAt',
  'scheduledDate',
  'status',
  'timestamp',
  'transactionId',
  'updatedAt',
];
const ORDER = ['amount', 'createdAt', 'currency', 'iccid', 'orderId', 'planId', 'status'];
const ACCEPTED = ['status', 'statusEndpoint', 'transactionId'];
const TEAM_MEMBER = ['email', 'name', 'role', 'status'];
const enc = encodeURIComponent;

export const ENDPOINTS: readonly Endpoint[] = [
  // Authentication and async status
  {
    method: 'POST',
    template: '/api/v1.1/auth/token',
    path: () => '/api/v1.1/auth/token',
    status: 200,
    open: true,
    answer: { object: ['access_token', 'expires_at', 'expires_in', 'token_type'] },
  },
  {
    method: 'GET',
    template: '/api/v3/transactions/{transactionId}',
    path: (i) => `/api/v3/transactions/${i.transactionId}`,
    status: 200,
    open: true,
    answer: { object: TRANSACTION },
  },
  // SIMs, subscriptions, plans, eSIM
  { method: 'GET', template: '/api/v1.1/sims', path: () => '/api/v1.1/sims', status: 200, answer: { page: SIM } },
  { method: 'GET', template: '/api/v1.1/subscriptions', path: () => '/api/v1.1/subscriptions', status: 200, answer: { page: SUBSCRIPTION } },
  {
    method: 'POST',
    template: '/api/v1.1/subscriptions/{iccid}/cancel',
    path: (i) => `/api/v1.1/subscriptions/${i.fixtures.activeSubscriptionIccid}/cancel`,
    status: 201,
    answer: { object: ['cancelledDate', 'iccid', 'status'] },
    idempotent: 'subscriptions.cancel',
    limit: 30,
  },
  {
    method: 'GET',
    template: '/api/v1.1/sims/{iccid}/subscription',
    path: (i) => `/api/v1.1/sims/${i.fixtures.physicalIccid}/subscription`,
    status: 200,
    answer: { object: [...SUBSCRIPTION, 'orderId', 'planCode', 'scheduledDate'] },
  },
  {
    method: 'GET',
    template: '/api/v1.1/plans/{planId}',
    path: (i) => `/api/v1.1/plans/${enc(i.fixtures.pricedPlanId)}`,
    status: 200,
    answer: { object: PLAN },
  },
  {
    method: 'GET',
    template: '/api/v1.1/esim/{iccid}/qr',
    path: (i) => `/api/v1.1/esim/${i.fixtures.esimIccid}/qr`,
    status: 200,
    answer: { object: ['activationCode', 'iccid', 'qrCodeUrl'] },
  },
  // Port-ins, billing, team, groups, devices, messaging
  {
    method: 'GET',
    template: '/api/v1.1/port-ins',
    path: () => '/api/v1.1/port-ins',
    status: 200,
    answer: { page: ['iccid', 'portInNumber', 'status', 'submittedAt'] },
  },
  { method: 'GET', template: '/api/v1.1/credit-balance', path: () => '/api/v1.1/credit-balance', status: 200, answer: { object: ['creditBalance'] } },
  { method: 'GET', template: '/api/v1.1/team-members', path: () => '/api/v1.1/team-members', status: 200, answer: { page: TEAM_MEMBER } },
  {
    method: 'GET',
    template: '/api/v1.1/team-members/{email}',
    path: (i) => `/api/v1.1/team-members/${enc(i.fixtures.plusTeamMemberEmail)}`,
    status: 200,
    answer: { object: [...TEAM_MEMBER, 'invitedAt'] },
  },
  {
    method: 'GET',
    template: '/api/v1.1/sim-groups/{name}',
    path: () => `/api/v1.1/sim-groups/${enc('Sales/East')}`,
    status: 200,
    answer: { object: ['currency', 'dataQuota', 'dataUnit', 'name', 'spendLimit'] },
  },
  {
    method: 'DELETE',
    template: '/api/v1.1/user-groups/{name}',
    path: () => `/api/v1.1/user-groups/${enc('Führung')}`,
    status: 200,
    answer: { object: ['name', 'status'] },
    idempotent: 'userGroups.delete',
  },
  {
    method: 'POST',
    template: '/api/v1.1/devices/{imei}/assign',
    path: (i) => `/api/v1.1/devices/${i.fixtures.unassignedImei}/assign`,
    body: (i) => ({ email: i.fixtures.endUserEmail }),
    status: 200,
    answer: { object: ['assignedTo', 'imei'] },
    idempotent: 'devices.assign',
  },
  {
    method: 'POST',
    template: '/api/v1.1/sms',
    path: () => '/api/v1.1/sms',
    body: (i) => ({ fromNumber: i.fixtures.phoneNumber, toNumber: '+14155550100', text: 'hi' }),
    status: 201,
    admin: true,
    answer: { object: ['message'] },
    idempotent: 'sms.sent',
    limit: 30,
  },
  // Voice quality
  {
    method: 'GET',
    template: '/api/v1.1/voice-quality/webhooks',
    path: () => '/api/v1.1/voice-quality/webhooks',
    status: 200,
    answer: { page: ['createdAt', 'description', 'events', 'id', 'status', 'updatedAt', 'url'] },
  },
  // Webhook registrations and deliveries
  {
    method: 'POST',
    template: '/api/v1.1/webhooks',
    path: () => '/api/v1.1/webhooks',
    body: () => ({ operator: 'Telstra', network: 'Telstra 4G', eventType: 'voice' }),
    status: 200,
    answer: { object: [...REGISTRATION, 'signingSecret'] },
  },
  { method: 'GET', template: '/api/v1.1/webhooks', path: () => '/api/v1.1/webhooks', status: 200, answer: { page: REGISTRATION } },
  {
    method: 'GET',
    template: '/api/v1.1/webhooks/{id}',
    path: (i) => `/api/v1.1/webhooks/${i.webhookId}`,
    status: 200,
    answer: { object: REGISTRATION },
  },
  {
    method: 'PUT',
    template: '/api/v1.1/webhooks/{id}',
    path: (i) => `/api/v1.1/webhooks/${i.webhookId}`,
    body: () => ({ eventType: 'both' }),
    status: 200,
    answer: { object: REGISTRATION },
  },
  {
    method: 'DELETE',
    template: '/api/v1.1/webhooks/{id}',
    path: (i) => `/api/v1.1/webhooks/${i.webhookId}`,
    status: 200,
    answer: { object: ['deleted', 'id'] },
  },
  // The prepared registration's URL is on a reserved host, so the test delivery fails at once.
  {
    method: 'POST',
    template: '/api/v1.1/webhooks/{id}/test',
    path: (i) => `/api/v1.1/webhooks/${i.webhookId}/test`,
    body: () => ({ eventType: 'webhook.test' }),
    status: 502,
    answer: { error: 'DELIVERY_FAILED' },
    limit: 10,
  },
  { method: 'GET', template: '/api/v1.1/webhook-deliveries', path: () => '/api/v1.1/webhook-deliveries', status: 200, answer: { page: DELIVERY } },
  {
    method: 'POST',
    template: '/api/v1.1/webhook-deliveries/{deliveryId}/redeliver',
    path: (i) => `/api/v1.1/webhook-deliveries/${i.deliveryId}/redeliver`,
    status: 202,
    answer: { object: DELIVERY },
  },
  // Known by name only: shapes documented in docs/shapes.md
  {
    method: 'POST',
    template: '/api/v1.1/sims/{iccid}/renew-number',
    path: (i) => `/api/v1.1/sims/${i.fixtures.physicalIccid}/renew-number`,
    status: 200,
    answer: { object: ['iccid', 'phoneNumber', 'previousPhoneNumber'] },
    limit: 20,
  },
  {
    method: 'POST',
    template: '/api/v1.1/plans/purchase',
    path: () => '/api/v1.1/plans/purchase',
    body: (i) => ({ iccid: i.fixtures.physicalIccid, planId: i.fixtures.pricedPlanId }),
    status: 200,
    answer: { object: ORDER },
    limit: 60,
  },
  {
    method: 'POST',
    template: '/api/v3/plans/purchase',
    path: () => '/api/v3/plans/purchase',
    body: (i) => ({ iccid: i.fixtures.physicalIccid, planId: i.fixtures.pricedPlanId }),
    status: 202,
    answer: { object: ACCEPTED },
    idempotent: 'plans.purchaseAsync',
    limit: 60,
  },
  {
    method: 'POST',
    template: '/api/v1.1/esim',
    path: () => '/api/v1.1/esim',
    body: () => ({}),
    status: 202,
    answer: { object: ACCEPTED },
    idempotent: 'esim.provision',
    limit: 60,
  },
  {
    method: 'POST',
    template: '/api/v1.1/top-up',
    path: () => '/api/v1.1/top-up',
    body: () => ({ amount: 10 }),
    status: 201,
    answer: { object: ACCEPTED },
    idempotent: 'topUp',
    limit: 20,
  },
  {
    method: 'POST',
    template: '/api/v1.1/port-in/eligibility',
    path: () => '/api/v1.1/port-in/eligibility',
    body: () => ({ portInNumber: '+61400111222' }),
    status: 200,
    open: true,
    answer: { object: ['eligible', 'portInNumber'] },
    limit: 20,
  },
  {
    method: 'POST',
    template: '/api/v3/port-in',
    path: () => '/api/v3/port-in',
    body: (i) => ({ portInNumber: '+61400222333', iccid: i.fixtures.physicalIccid }),
    status: 202,
    admin: true,
    answer: { bare: ACCEPTED },
    idempotent: 'portIn.submit',
  },
  {
    method: 'POST',
    template: '/api/v1.1/team-members',
    path: () => '/api/v1.1/team-members',
    body: () => ({ name: 'New One', email: 'new.one@acme.example', role: 'Admin' }),
    status: 201,
    answer: { object: [...TEAM_MEMBER, 'invitedAt'] },
    limit: 20,
  },
  { method: 'GET', template: '/api/v1.1/orders/{id}', path: (i) => `/api/v1.1/orders/${i.fixtures.orderId}`, status: 200, answer: { object: ORDER } },
  {
    method: 'GET',
    template: '/api/v1.1/users',
    path: () => '/api/v1.1/users',
    status: 200,
    answer: { page: ['createdAt', 'department', 'email', 'name'] },
  },
];

/**
 * Ids the {id}, {deliveryId} and {transactionId} routes need: a registration on a reserved host
 * with one failed test delivery, and a top-up transaction. Without `create`, ids that match
 * nothing (enough where only the route matters, as for rate limits).
 */
export async function prepareIds(s: SandboxSession, create = true): Promise<Ids> {
  const fixtures = s.sandbox.fixtures;
  if (!create) return { fixtures, webhookId: 'wh_missing', deliveryId: 'dlv_missing', transactionId: 'txn_missing' };
  const registration = await s.post('/api/v1.1/webhooks', {
    operator: 'Optus',
    network: 'Optus 4G',
    eventType: 'sms',
    webhookUrls: { messageUrl: 'https://receiver.partner.example/sms' },
  });
  const webhookId: string = registration.body.data.id;
  await s.post(`/api/v1.1/webhooks/${webhookId}/test`, { eventType: 'webhook.test' });
  const [delivery] = (await s.get(`/api/v1.1/webhook-deliveries?webhookId=${webhookId}`)).body.data;
  const topUp = await s.post('/api/v1.1/top-up', { amount: 1 });
  return { fixtures, webhookId, deliveryId: delivery.deliveryId, transactionId: topUp.body.data.transactionId };
}

/** One call of an endpoint's valid request with the given bearer (none when null). */
export function callEndpoint(
  s: SandboxSession,
  endpoint: Endpoint,
  ids: Ids,
  token: string | null,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const body = endpoint.template === '/api/v1.1/auth/token' ? { key: s.sandbox.key, secret: s.sandbox.secret } : endpoint.body?.(ids);
  return call(s.sandbox, endpoint.method, endpoint.path(ids), { token, body, headers });
}
