import type { SandboxApp, SandboxCtx } from '../context.js';
import type { WebhookDomain } from './domain.js';
import { deliveryToWire } from './delivery-log.js';
import { testDelivery } from './operator-deliveries.js';
import { testEventBody } from './event-bodies.js';
import {
  createRegistrationSchema,
  updateRegistrationSchema,
  validationErrors,
  type RegistrationEventType,
  type WebhookUrlName,
  type WebhookUrls,
} from './registration-schema.js';
import { registrationToWire, type RegistrationRecord } from './registrations.js';
import { resolveRetryPolicy } from './retry-policy.js';
import { newSigningSecret } from './signing.js';

const BASE = '/api/v1.1/webhooks';
const REQUIRED_ON_CREATE = ['operator', 'network', 'eventType'] as const;

/** spec part 4: test target is the first configured of these; voiceStreamUrl never is. */
const TEST_TARGET_ORDER: readonly WebhookUrlName[] = ['messageUrl', 'callbackMessageUrl', 'voiceUrl', 'callbackVoiceUrl'];

/**
 * spec part 4 registration rule 1: eventType sms is checked for SMS enablement. An operator of
 * the account without inbound SMS is refused with 400 VALIDATION_ERROR (a business-rule check on
 * the request, which is what VALIDATION_ERROR covers; 501 is kept for actions an operator cannot do).
 */
function smsRefusal(domain: WebhookDomain, operator: string, eventType: RegistrationEventType): string | null {
  if (eventType !== 'sms') return null;
  const record = domain.ctx.operator(operator);
  return record && !record.inboundSms ? `operator ${operator} does not support SMS events` : null;
}

function notFound(domain: WebhookDomain, c: SandboxCtx): Response {
  return domain.ctx.fail(c, 404, 'WEBHOOK_NOT_FOUND', 'Webhook registration not found');
}

function invalid(domain: WebhookDomain, c: SandboxCtx, errors: string[]): Response {
  return domain.ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid webhook registration', { validationErrors: errors });
}

function create(domain: WebhookDomain, c: SandboxCtx): Response {
  const { ctx } = domain;
  const body = ctx.requireBody(c, REQUIRED_ON_CREATE);
  if (body instanceof Response) return body;
  const parsed = createRegistrationSchema.safeParse(body);
  if (!parsed.success) return invalid(domain, c, validationErrors(parsed.error));
  const input = parsed.data;
  const refusal = smsRefusal(domain, input.operator, input.eventType);
  if (refusal) return invalid(domain, c, [refusal]);
  const existing = domain.registrations.findByKey(input.operator, input.network);
  if (existing && input.update !== true) {
    return ctx.fail(c, 409, 'CONFLICT', 'A webhook for this operator and network already exists; send update: true to replace it');
  }
  const now = ctx.nowIso();
  // An upsert replaces the registration whole (spec part 4), keeping only its id and createdAt;
  // its signing secret is issued anew because this answer is the only place a secret is shown.
  const record: RegistrationRecord = {
    id: existing?.id ?? ctx.newId('wh_', 24),
    operator: input.operator,
    network: input.network,
    eventType: input.eventType,
    authentication: input.authentication ?? { type: 'none' },
    webhookUrls: { ...input.webhookUrls },
    retryPolicy: resolveRetryPolicy(input.retryPolicy),
    status: input.status ?? 'active',
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
    signingSecret: newSigningSecret((n) => ctx.rng.hex(n)),
    consecutiveFailures: 0,
  };
  domain.registrations.put(record);
  ctx.counters.bump(existing ? 'webhooks.replaced' : 'webhooks.created');
  return ctx.ok(c, { ...registrationToWire(record), signingSecret: record.signingSecret });
}

function update(domain: WebhookDomain, c: SandboxCtx): Response {
  const { ctx } = domain;
  const record = domain.registrations.get(c.req.param('id') ?? '');
  if (!record) return notFound(domain, c);
  const body = ctx.readBody(c);
  if (body === null) return invalid(domain, c, ['body must be a JSON object']);
  const parsed = updateRegistrationSchema.safeParse(body);
  if (!parsed.success) return invalid(domain, c, validationErrors(parsed.error));
  const input = parsed.data;
  const operator = input.operator ?? record.operator;
  const network = input.network ?? record.network;
  const eventType = input.eventType ?? record.eventType;
  const refusal = smsRefusal(domain, operator, eventType);
  if (refusal) return invalid(domain, c, [refusal]);
  const holder = domain.registrations.findByKey(operator, network);
  if (holder && holder.id !== record.id) {
    return ctx.fail(c, 409, 'CONFLICT', 'A webhook for this operator and network already exists');
  }
  const urls: WebhookUrls = { ...record.webhookUrls };
  for (const [name, value] of Object.entries(input.webhookUrls ?? {}) as [WebhookUrlName, string | null | undefined][]) {
    if (value === null) delete urls[name];
    else if (value !== undefined) urls[name] = value;
  }
  Object.assign(record, {
    operator,
    network,
    eventType,
    authentication: input.authentication ?? record.authentication,
    webhookUrls: urls,
    retryPolicy: resolveRetryPolicy(input.retryPolicy, record.retryPolicy),
    updatedAt: ctx.nowIso(),
  });
  if (input.status !== undefined) {
    record.status = input.status;
    // Re-activating a suspended registration gives it a fresh run of 10 failures.
    if (input.status === 'active') record.consecutiveFailures = 0;
  }
  return ctx.ok(c, registrationToWire(record));
}

async function test(domain: WebhookDomain, c: SandboxCtx): Promise<Response> {
  const { ctx } = domain;
  const record = domain.registrations.get(c.req.param('id') ?? '');
  if (!record) return notFound(domain, c);
  const body = ctx.readBody(c);
  const eventType = body?.eventType ?? 'webhook.test';
  if (eventType !== 'webhook.test') return invalid(domain, c, ['eventType must be webhook.test']);
  const name = TEST_TARGET_ORDER.find((n) => record.webhookUrls[n] !== undefined);
  const url = name && record.webhookUrls[name];
  if (!url) return invalid(domain, c, ['the registration has no messageUrl, callbackMessageUrl, voiceUrl or callbackVoiceUrl to test']);
  const delivery = await testDelivery(domain, record, {
    url,
    eventType: 'webhook.test',
    body: JSON.stringify(testEventBody(record, ctx.nowIso())),
  });
  if (delivery.status !== 'DELIVERED') {
    return ctx.fail(c, 502, 'DELIVERY_FAILED', 'The webhook endpoint did not answer the test delivery with a 2xx');
  }
  return ctx.ok(c, deliveryToWire(delivery));
}

export function registerRegistrationRoutes(app: SandboxApp, domain: WebhookDomain): void {
  const { ctx } = domain;
  app.post(BASE, (c) => create(domain, c));
  // A page like every list (spec part 1 rule 5, bounds of part 8), though part 4's row shows no
  // paging for it.
  app.get(BASE, (c) => ctx.paginate(c, domain.registrations.list(), registrationToWire));
  app.get(`${BASE}/:id`, (c) => {
    const record = domain.registrations.get(c.req.param('id'));
    return record ? ctx.ok(c, registrationToWire(record)) : notFound(domain, c);
  });
  app.put(`${BASE}/:id`, (c) => update(domain, c));
  app.delete(`${BASE}/:id`, (c) => {
    const id = c.req.param('id');
    if (!domain.registrations.delete(id)) return notFound(domain, c);
    domain.deliveries.dropWebhook(id);
    return ctx.ok(c, { id, deleted: true });
  });
  app.post(`${BASE}/:id/test`, (c) => test(domain, c));
}
