/**
 * Delivery records of operator webhooks (spec part 2): metadata only. The body and URL are kept
 * for redelivery but never leave the sandbox (spec part 6, operator events rule 6).
 */

/** PENDING and FAILED come from the spec; DELIVERED marks a 2xx answer. */
type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface DeliveryRecord {
  deliveryId: string;
  webhookId: string;
  eventType: string;
  status: DeliveryStatus;
  /** HTTP status of the last answer; 0 while none came (not yet attempted, unreachable, timed out). */
  responseCode: number;
  /** Attempts made so far. */
  attempt: number;
  /** Time of the last attempt; the queueing time until the first attempt runs. */
  deliveredAt: string;
  createdAt: string;
  url: string;
  body: string;
  /** The first delivery of this event and endpoint; redeliveries share it. */
  originalDeliveryId: string;
  /** Test deliveries never count toward suspension (spec part 3). */
  countsTowardSuspension: boolean;
}

export function deliveryToWire(record: DeliveryRecord): Record<string, unknown> {
  return {
    deliveryId: record.deliveryId,
    webhookId: record.webhookId,
    eventType: record.eventType,
    status: record.status,
    responseCode: record.responseCode,
    attempt: record.attempt,
    deliveredAt: record.deliveredAt,
    createdAt: record.createdAt,
  };
}

export interface DeliveryFilter {
  webhookId?: string | undefined;
  status?: string | undefined;
}

export class DeliveryLog {
  readonly #records: DeliveryRecord[] = [];

  add(record: DeliveryRecord): void {
    this.#records.push(record);
  }

  get(deliveryId: string): DeliveryRecord | undefined {
    return this.#records.find((r) => r.deliveryId === deliveryId);
  }

  /** Newest first. */
  list(filter: DeliveryFilter = {}): DeliveryRecord[] {
    return this.#records
      .filter((r) => filter.webhookId === undefined || r.webhookId === filter.webhookId)
      .filter((r) => filter.status === undefined || r.status === filter.status)
      .reverse();
  }

  /** Whether a delivery of the same event to the same endpoint is still running. */
  inProgress(originalDeliveryId: string): boolean {
    return this.#records.some((r) => r.originalDeliveryId === originalDeliveryId && r.status === 'PENDING');
  }

  /** Drops the records of a deleted registration. */
  dropWebhook(webhookId: string): void {
    for (let i = this.#records.length - 1; i >= 0; i--) {
      if (this.#records[i]?.webhookId === webhookId) this.#records.splice(i, 1);
    }
  }

  clear(): void {
    this.#records.length = 0;
  }
}
