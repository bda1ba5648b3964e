import { runAttemptSeries } from './attempts.js';
import type { DeliveryRecord } from './delivery-log.js';
import type { WebhookDomain } from './domain.js';
import { credentialHeaders, SUSPEND_AFTER_FAILURES, type RegistrationRecord } from './registrations.js';
import { operatorRetryDelaysMs } from './retry-policy.js';
import { sendOnce, type AttemptOutcome } from './send.js';
import { signedHeaders } from './signing.js';
import { deliveryChanged, noteAttempt, registrationChanged } from '../inspector/deliveries.js';

export interface DeliveryTarget {
  url: string;
  eventType: string;
  body: string;
}

interface StartOptions {
  /** Set on a redelivery: the delivery it repeats. */
  originalDeliveryId?: string;
  countsTowardSuspension: boolean;
  /** A redelivery is asked for by the partner and runs even on a suspended registration. */
  manual: boolean;
}

/** Thrown into an attempt series when its registration was deleted or suspended meanwhile. */
class RegistrationGone extends Error {}

/**
 * Signs with the registration's current secret and presents its current credential. The attempt
 * is noted for the inspector with `retryInMs`, the wait before the retry a failure would get.
 */
async function attemptOnce(
  domain: WebhookDomain,
  registration: RegistrationRecord,
  target: DeliveryTarget,
  record: DeliveryRecord,
  retryInMs: number | undefined,
): Promise<AttemptOutcome> {
  const timestampSeconds = Math.floor(domain.scheduler.now() / 1000);
  const signed = signedHeaders(target.body, registration.signingSecret, timestampSeconds);
  const startedAt = performance.now();
  const outcome = await sendOnce({
    fetch: domain.fetch,
    url: target.url,
    body: target.body,
    headers: {
      'user-agent': 'partner-sandbox',
      ...credentialHeaders(registration.authentication),
      ...signed,
    },
    timeoutMs: domain.ctx.options.deliveryTimeoutMs,
    signal: domain.inFlight.signal,
  });
  const latencyMs = performance.now() - startedAt;
  noteAttempt(domain, record, { ...outcome, latencyMs, signature: signed['x-service-signature'] ?? '', retryInMs });
  return outcome;
}

function newRecord(domain: WebhookDomain, webhookId: string, target: DeliveryTarget, options: StartOptions): DeliveryRecord {
  const now = domain.ctx.nowIso();
  const deliveryId = domain.ctx.newId('dlv_', 24);
  const record: DeliveryRecord = {
    deliveryId,
    webhookId,
    eventType: target.eventType,
    status: 'PENDING',
    responseCode: 0,
    attempt: 0,
    deliveredAt: now,
    createdAt: now,
    url: target.url,
    body: target.body,
    originalDeliveryId: options.originalDeliveryId ?? deliveryId,
    countsTowardSuspension: options.countsTowardSuspension,
  };
  domain.deliveries.add(record);
  deliveryChanged(domain, record);
  return record;
}

function recordAttempt(domain: WebhookDomain, record: DeliveryRecord, attempt: number, outcome: AttemptOutcome): void {
  record.attempt = attempt;
  record.responseCode = outcome.responseCode;
  record.deliveredAt = domain.ctx.nowIso();
}

/** spec part 6, operator events rule 2: 10 consecutive failed deliveries suspend the registration; a success resets the run. */
function countOutcome(domain: WebhookDomain, webhookId: string, ok: boolean): void {
  const registration = domain.registrations.get(webhookId);
  if (!registration) return;
  if (ok) {
    registration.consecutiveFailures = 0;
    return;
  }
  registration.consecutiveFailures += 1;
  if (registration.consecutiveFailures >= SUSPEND_AFTER_FAILURES && registration.status === 'active') {
    registration.status = 'suspended';
    registration.updatedAt = domain.ctx.nowIso();
    domain.ctx.counters.bump('webhooks.suspended');
    registrationChanged(domain, webhookId);
  }
}

async function runSeries(domain: WebhookDomain, record: DeliveryRecord, target: DeliveryTarget, options: StartOptions): Promise<void> {
  const initial = domain.registrations.get(record.webhookId);
  if (!initial) return;
  let ok = false;
  const retryDelaysMs = operatorRetryDelaysMs(initial.retryPolicy);
  try {
    const result = await runAttemptSeries({
      retryDelaysMs,
      attempt: (attempt) => {
        const registration = domain.registrations.get(record.webhookId);
        const stopped = !registration || (!options.manual && attempt > 1 && registration.status === 'suspended');
        if (!registration || stopped) throw new RegistrationGone();
        domain.ctx.counters.bump('webhooks.attempts');
        return attemptOnce(domain, registration, target, record, retryDelaysMs[attempt - 1]);
      },
      onAttempt: (attempt, outcome) => recordAttempt(domain, record, attempt, outcome),
      scheduler: domain.scheduler,
      signal: domain.inFlight.signal,
    });
    ok = result.ok;
  } catch (error) {
    if (!(error instanceof RegistrationGone)) throw error;
  }
  record.status = ok ? 'DELIVERED' : 'FAILED';
  if (record.countsTowardSuspension) countOutcome(domain, record.webhookId, ok);
  deliveryChanged(domain, record);
}

/**
 * Starts a delivery (one event to one endpoint, with its retries) in the background and returns
 * its PENDING record. A "delivery" for the suspension count is this whole series (spec part 3).
 */
export function startDelivery(
  domain: WebhookDomain,
  registration: RegistrationRecord,
  target: DeliveryTarget,
  options: StartOptions = { countsTowardSuspension: true, manual: false },
): DeliveryRecord {
  const record = newRecord(domain, registration.id, target, options);
  domain.ctx.counters.bump('webhooks.deliveries');
  void domain.inFlight.track(runSeries(domain, record, target, options));
  return record;
}

/** The test operation: one attempt, no retries, recorded, never counted (spec part 4). */
export async function testDelivery(domain: WebhookDomain, registration: RegistrationRecord, target: DeliveryTarget): Promise<DeliveryRecord> {
  const record = newRecord(domain, registration.id, target, { countsTowardSuspension: false, manual: true });
  domain.ctx.counters.bump('webhooks.tests');
  const outcome = await domain.inFlight.track(attemptOnce(domain, registration, target, record, undefined));
  recordAttempt(domain, record, 1, outcome);
  record.status = outcome.ok ? 'DELIVERED' : 'FAILED';
  deliveryChanged(domain, record);
  return record;
}

export type RedeliverResult = { kind: 'started'; record: DeliveryRecord } | { kind: 'not_found' } | { kind: 'in_progress' };

/** spec part 3: the original event and body go to the original endpoint as a new PENDING delivery. */
export function redeliver(domain: WebhookDomain, deliveryId: string): RedeliverResult {
  const original = domain.deliveries.get(deliveryId);
  const registration = original && domain.registrations.get(original.webhookId);
  if (!original || !registration) return { kind: 'not_found' };
  if (domain.deliveries.inProgress(original.originalDeliveryId)) return { kind: 'in_progress' };
  const record = startDelivery(
    domain,
    registration,
    { url: original.url, eventType: original.eventType, body: original.body },
    { originalDeliveryId: original.originalDeliveryId, countsTowardSuspension: original.countsTowardSuspension, manual: true },
  );
  domain.ctx.counters.bump('webhooks.redeliveries');
  return { kind: 'started', record };
}
