/**
 * What the inspector shows of webhook deliveries: each attempt with its answer, latency,
 * signature header and next retry, which the delivery record (the spec's metadata) does not keep.
 */
import { maskUrlCredentials } from '../mask-url.js';
import type { DeliveryRecord } from '../webhooks/delivery-log.js';
import type { WebhookDomain } from '../webhooks/domain.js';
import { hubOf } from './hub.js';

interface AttemptView {
  attempt: number;
  /** Sandbox time the answer (or its absence) was recorded. */
  at: string;
  /** 0 when no answer came (unreachable, timed out). */
  responseCode: number;
  ok: boolean;
  /** Real milliseconds the attempt took. */
  latencyMs: number;
  /** The X-Service-Signature header sent: an HMAC of this body, not the secret. */
  signature: string;
  /** Sandbox time of the next retry; null when none follows. */
  nextRetryAt: string | null;
}

export interface AttemptNote {
  responseCode: number;
  ok: boolean;
  latencyMs: number;
  signature: string;
  /** Sandbox milliseconds before the retry that follows a failure; undefined when none is left. */
  retryInMs: number | undefined;
}

/** Attempts live as long as their record: a dropped record takes its attempts with it. */
const attempts = new WeakMap<DeliveryRecord, AttemptView[]>();
/** A delivery makes at most 1 + 10 attempts (spec part 8); the bound is only a guard. */
const MAX_ATTEMPTS_KEPT = 16;

export function noteAttempt(domain: WebhookDomain, record: DeliveryRecord, note: AttemptNote): void {
  const list = attempts.get(record) ?? [];
  const nowMs = domain.scheduler.now();
  list.push({
    attempt: list.length + 1,
    at: new Date(nowMs).toISOString(),
    responseCode: note.responseCode,
    ok: note.ok,
    latencyMs: Math.round(note.latencyMs * 100) / 100,
    signature: note.signature,
    nextRetryAt: note.ok || note.retryInMs === undefined ? null : new Date(nowMs + note.retryInMs).toISOString(),
  });
  if (list.length > MAX_ATTEMPTS_KEPT) list.shift();
  attempts.set(record, list);
  deliveryChanged(domain, record);
}

/** Marks a delivery changed for the page; free while nobody watches. */
export function deliveryChanged(domain: WebhookDomain, record: DeliveryRecord): void {
  hubOf(domain.ctx).feed.touch('deliveries', record.deliveryId, () => deliveryView(domain, record));
}

/** The registration's state changed (suspended, re-activated): its deliveries show it. */
export function registrationChanged(domain: WebhookDomain, webhookId: string): void {
  for (const record of domain.deliveries.list({ webhookId }).slice(0, 20)) deliveryChanged(domain, record);
}

export function deliveryView(domain: WebhookDomain, record: DeliveryRecord): Record<string, unknown> {
  const registration = domain.registrations.get(record.webhookId);
  const list = attempts.get(record) ?? [];
  const last = list[list.length - 1];
  return {
    deliveryId: record.deliveryId,
    webhookId: record.webhookId,
    eventType: record.eventType,
    status: record.status,
    url: maskUrlCredentials(record.url),
    createdAt: record.createdAt,
    responseCode: record.responseCode,
    attempts: list,
    nextRetryAt: record.status === 'PENDING' ? (last?.nextRetryAt ?? null) : null,
    redeliveryOf: record.originalDeliveryId === record.deliveryId ? null : record.originalDeliveryId,
    test: !record.countsTowardSuspension,
    registration: registration ? { id: registration.id, status: registration.status, consecutiveFailures: registration.consecutiveFailures } : null,
  };
}

export function deliveryCounts(domain: WebhookDomain | null): { deliveriesFailed: number; suspendedRegistrations: number } {
  if (!domain) return { deliveriesFailed: 0, suspendedRegistrations: 0 };
  return {
    deliveriesFailed: domain.deliveries.list({ status: 'FAILED' }).length,
    suspendedRegistrations: domain.registrations.list().filter((r) => r.status === 'suspended').length,
  };
}
