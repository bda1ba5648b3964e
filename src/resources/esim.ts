import type { ApiPromise } from '../core/api-promise.js';
import type { TransactionHandle } from '../core/polling.js';
import type { RequestOptions } from '../core/request.js';
import { type EsimActivation, type EsimProvisioningResult, type EsimProvisionParams, esimActivationSchema } from '../schemas/esim.js';
import { type Endpoint, Resource } from './endpoint.js';
import { ASYNC_OPERATIONS } from './async-operations.js';

const retrieveQr: Endpoint<EsimActivation> = {
  operation: 'esim.retrieveQr',
  method: 'GET',
  path: '/api/v1.1/esim/{iccid}/qr',
  get schema() {
    return esimActivationSchema();
  },
};

/**
 * `client.esim`: eSIM provisioning (asynchronous) and activation QR codes.
 *
 * @group Resources
 */
export class Esim extends Resource {
  /** The activation QR of an eSIM (a read; it never regenerates the profile). 400 for a physical SIM. */
  retrieveQr(iccid: string, options?: RequestOptions): ApiPromise<EsimActivation> {
    return this.call(retrieveQr, { params: { iccid }, options });
  }

  /** Starts provisioning; `await (await provision(...)).wait()` gives `result: { mdn, iccid, qrCode }`. */
  provision(body: EsimProvisionParams, options?: RequestOptions): ApiPromise<TransactionHandle<EsimProvisioningResult>> {
    return this.start(ASYNC_OPERATIONS['esim.provision'], { body, options });
  }
}
