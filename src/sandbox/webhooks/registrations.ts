import type { RetryPolicy } from './retry-policy.js';
import type { Authentication, RegistrationEventType, RegistrationStatus, WebhookUrls } from './registration-schema.js';

/** A registration as the sandbox keeps it; only toWire() output ever leaves the sandbox. */
export interface RegistrationRecord {
  id: string;
  operator: string;
  network: string;
  eventType: RegistrationEventType;
  authentication: Authentication;
  webhookUrls: WebhookUrls;
  retryPolicy: RetryPolicy;
  status: RegistrationStatus;
  createdAt: string;
  updatedAt: string;
  signingSecret: string;
  /** Failed deliveries in a row; 10 suspends the registration (spec part 3). */
  consecutiveFailures: number;
}

export const MASKED = '***ENCRYPTED***';
export const SUSPEND_AFTER_FAILURES = 10;

/** Credential values masked, type and header name kept (spec part 2). */
function maskAuthentication(auth: Authentication): Record<string, string> {
  switch (auth.type) {
    case 'none':
      return { type: 'none' };
    case 'bearer':
      return { type: 'bearer', token: MASKED };
    case 'basic':
      return { type: 'basic', username: MASKED, password: MASKED };
    case 'api_key':
      return { type: 'api_key', key: MASKED, headerName: auth.headerName ?? DEFAULT_API_KEY_HEADER };
  }
}

const DEFAULT_API_KEY_HEADER = 'X-API-Key';

/** Headers carrying the registration's credential to the partner URL (spec part 5 rule 8). */
export function credentialHeaders(auth: Authentication): Record<string, string> {
  switch (auth.type) {
    case 'none':
      return {};
    case 'bearer':
      return { authorization: `Bearer ${auth.token}` };
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
    case 'api_key':
      return { [(auth.headerName ?? DEFAULT_API_KEY_HEADER).toLowerCase()]: auth.key };
  }
}

/** The wire shape of a registration: credentials masked, never the signing secret. */
export function registrationToWire(record: RegistrationRecord): Record<string, unknown> {
  return {
    id: record.id,
    operator: record.operator,
    network: record.network,
    eventType: record.eventType,
    authentication: maskAuthentication(record.authentication),
    webhookUrls: { ...record.webhookUrls },
    retryPolicy: { ...record.retryPolicy },
    status: record.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The account's registrations, keyed by id; operator + network is unique among them. */
export class RegistrationStore {
  readonly #byId = new Map<string, RegistrationRecord>();

  get(id: string): RegistrationRecord | undefined {
    return this.#byId.get(id);
  }

  findByKey(operator: string, network: string): RegistrationRecord | undefined {
    for (const record of this.#byId.values()) {
      if (record.operator === operator && record.network === network) return record;
    }
    return undefined;
  }

  list(): RegistrationRecord[] {
    return [...this.#byId.values()];
  }

  put(record: RegistrationRecord): void {
    this.#byId.set(record.id, record);
  }

  delete(id: string): boolean {
    return this.#byId.delete(id);
  }

  clear(): void {
    this.#byId.clear();
  }
}
