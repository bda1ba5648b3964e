import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions, Transport } from '../core/request.js';
import {
  type VoiceQualityWebhook,
  type VoiceQualityWebhookListParams,
  voiceQualityWebhookListParamsSchema,
  voiceQualityWebhookListSchema,
} from '../schemas/voice-quality.js';
import { type Endpoint, Resource } from './endpoint.js';

const listVoiceQualityWebhooks: Endpoint<VoiceQualityWebhook[]> = {
  operation: 'voiceQuality.webhooks.list',
  method: 'GET',
  path: '/api/v1.1/voice-quality/webhooks',
  get schema() {
    return voiceQualityWebhookListSchema();
  },
  get query() {
    return voiceQualityWebhookListParamsSchema();
  },
};

/**
 * Receivers of voice.test.completed reports. Creating them is not shown in the spec.
 *
 * @group Resources
 */
export class VoiceQualityWebhooks extends Resource {
  /** A page of voice-quality report receivers; `for await` walks all of them. */
  list(params?: VoiceQualityWebhookListParams, options?: RequestOptions): PagePromise<VoiceQualityWebhook> {
    return this.paginate(listVoiceQualityWebhooks, params, options);
  }
}

/**
 * `client.voiceQuality`: voice-quality tests and their report receivers.
 *
 * @group Resources
 */
export class VoiceQuality extends Resource {
  /** The receivers of `voice.test.completed` reports. */
  readonly webhooks: VoiceQualityWebhooks;

  /** @internal Built by {@link PartnerClient}. */
  constructor(transport: Transport) {
    super(transport);
    this.webhooks = new VoiceQualityWebhooks(transport);
  }
}
