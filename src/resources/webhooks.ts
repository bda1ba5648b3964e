import type { ApiPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions, Transport } from '../core/request.js';
import {
  type WebhookCreateParams,
  type WebhookDeletion,
  type WebhookDelivery,
  type WebhookDeliveryListParams,
  type WebhookListParams,
  type WebhookRegistration,
  type WebhookRegistrationWithSecret,
  type WebhookTestResult,
  type WebhookUpdateParams,
  webhookCreateParamsSchema,
  webhookDeletionSchema,
  webhookDeliveryListParamsSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookListParamsSchema,
  webhookRegistrationListSchema,
  webhookRegistrationSchema,
  webhookRegistrationWithSecretSchema,
  webhookTestParamsSchema,
  webhookTestResultSchema,
  webhookUpdateParamsSchema,
} from '../schemas/webhook.js';
import { type Endpoint, Resource } from './endpoint.js';
import { pagesByMeta } from './meta-pages.js';

const WEBHOOK_PATH = '/api/v1.1/webhooks/{id}';

const createWebhook: Endpoint<WebhookRegistrationWithSecret> = {
  operation: 'webhooks.create',
  method: 'POST',
  path: '/api/v1.1/webhooks',
  get schema() {
    return webhookRegistrationWithSecretSchema();
  },
  get body() {
    return webhookCreateParamsSchema();
  },
};

/** Paged like every list (spec part 1 rule 5), though part 4 shows no paging for it. */
const listWebhooks: Endpoint<WebhookRegistration[]> = {
  operation: 'webhooks.list',
  method: 'GET',
  path: '/api/v1.1/webhooks',
  get schema() {
    return webhookRegistrationListSchema();
  },
  get query() {
    return webhookListParamsSchema();
  },
};

const retrieveWebhook: Endpoint<WebhookRegistration> = {
  operation: 'webhooks.retrieve',
  method: 'GET',
  path: WEBHOOK_PATH,
  get schema() {
    return webhookRegistrationSchema();
  },
};

const updateWebhook: Endpoint<WebhookRegistration> = {
  operation: 'webhooks.update',
  method: 'PUT',
  path: WEBHOOK_PATH,
  get schema() {
    return webhookRegistrationSchema();
  },
  get body() {
    return webhookUpdateParamsSchema();
  },
};

const deleteWebhook: Endpoint<WebhookDeletion> = {
  operation: 'webhooks.delete',
  method: 'DELETE',
  path: WEBHOOK_PATH,
  get schema() {
    return webhookDeletionSchema();
  },
};

/** The test body names the synthetic event (spec part 4). */
const testWebhook: Endpoint<WebhookTestResult> = {
  operation: 'webhooks.test',
  method: 'POST',
  path: '/api/v1.1/webhooks/{id}/test',
  get schema() {
    return webhookTestResultSchema();
  },
  get body() {
    return webhookTestParamsSchema();
  },
};
const TEST_BODY = { eventType: 'webhook.test' } as const;

/** Paged like every list (spec part 1 rule 5), though part 4 shows only the two filters. */
const listDeliveries: Endpoint<WebhookDelivery[]> = {
  operation: 'webhooks.deliveries.list',
  method: 'GET',
  path: '/api/v1.1/webhook-deliveries',
  get schema() {
    return webhookDeliveryListSchema();
  },
  get query() {
    return webhookDeliveryListParamsSchema();
  },
};

const redeliver: Endpoint<WebhookDelivery> = {
  operation: 'webhooks.deliveries.redeliver',
  method: 'POST',
  path: '/api/v1.1/webhook-deliveries/{deliveryId}/redeliver',
  get schema() {
    return webhookDeliverySchema();
  },
};

/**
 * The delivery log (metadata only: payloads and response bodies are never returned).
 *
 * @group Resources
 */
export class WebhookDeliveries extends Resource {
  /**
   * A page of delivery records, newest first; `for await` walks every page when the answer
   * carries page meta. A plain array answer (no meta) is the whole log, one page.
   */
  list(params?: WebhookDeliveryListParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return pagesByMeta(this.transport, listDeliveries, params, options);
  }

  /** Resends the original event to its original endpoint: 202 with a new PENDING record; 409 while one runs. */
  redeliver(deliveryId: string, options?: RequestOptions): ApiPromise<WebhookDelivery> {
    return this.call(redeliver, { params: { deliveryId }, options });
  }
}

/**
 * Operator SMS and voice event registrations: one per account, operator and network.
 *
 * @group Resources
 */
export class Webhooks extends Resource {
  /** The delivery log of the account's webhooks. */
  readonly deliveries: WebhookDeliveries;

  /** @internal Built by {@link PartnerClient}. */
  constructor(transport: Transport) {
    super(transport);
    this.deliveries = new WebhookDeliveries(transport);
  }

  /**
   * Registers (or, with `update: true`, replaces) the registration of an operator and network.
   * The answer is the only one that carries `signingSecret`: store it now.
   */
  create(body: WebhookCreateParams, options?: RequestOptions): ApiPromise<WebhookRegistrationWithSecret> {
    return this.call(createWebhook, { body, options });
  }

  /**
   * A page of the account's registrations; `for await` walks all of them. Signing secrets are
   * never returned. A plain array answer (no meta) is the whole list, one page.
   */
  list(params?: WebhookListParams, options?: RequestOptions): PagePromise<WebhookRegistration> {
    return pagesByMeta(this.transport, listWebhooks, params, options);
  }

  /** One registration; 404 WEBHOOK_NOT_FOUND. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<WebhookRegistration> {
    return this.call(retrieveWebhook, { params: { id }, options });
  }

  /** Partial update of the registration fields. */
  update(id: string, body: WebhookUpdateParams, options?: RequestOptions): ApiPromise<WebhookRegistration> {
    return this.call(updateWebhook, { params: { id }, body, options });
  }

  /** Removes a registration: deliveries to it stop; 404 WEBHOOK_NOT_FOUND. */
  delete(id: string, options?: RequestOptions): ApiPromise<WebhookDeletion> {
    return this.call(deleteWebhook, { params: { id }, options });
  }

  /** One synthetic webhook.test delivery, no retries; 502 DeliveryFailedError when the endpoint fails. */
  test(id: string, options?: RequestOptions): ApiPromise<WebhookTestResult> {
    return this.call(testWebhook, { params: { id }, body: TEST_BODY, options });
  }
}
