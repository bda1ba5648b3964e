import type { ApiPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request.js';
import { type SmsSendParams, type SmsSendResult, smsSendParamsSchema, smsSendResultSchema } from '../schemas/sms.js';
import { type Endpoint, Resource } from './endpoint.js';

const sendSms: Endpoint<SmsSendResult> = {
  operation: 'sms.send',
  method: 'POST',
  path: '/api/v1.1/sms',
  get schema() {
    return smsSendResultSchema();
  },
  get body() {
    return smsSendParamsSchema();
  },
  idempotent: true,
};

/**
 * `client.sms`: outbound SMS from the account's numbers.
 *
 * @group Resources
 */
export class Sms extends Resource {
  /** Sends an SMS from a provisioned number (Admin tier); 501 where the operator has no outbound SMS. */
  send(body: SmsSendParams, options?: RequestOptions): ApiPromise<SmsSendResult> {
    return this.call(sendSms, { body, options });
  }
}
