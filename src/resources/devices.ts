import type { ApiPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request.js';
import { type DeviceAssignment, type DeviceAssignParams, deviceAssignmentSchema, deviceAssignParamsSchema } from '../schemas/device.js';
import { type Endpoint, Resource } from './endpoint.js';

const assignDevice: Endpoint<DeviceAssignment> = {
  operation: 'devices.assign',
  method: 'POST',
  path: '/api/v1.1/devices/{imei}/assign',
  get schema() {
    return deviceAssignmentSchema();
  },
  get body() {
    return deviceAssignParamsSchema();
  },
  idempotent: true,
};

/**
 * `client.devices`: assigning devices (by IMEI or MEID) to end users.
 *
 * @group Resources
 */
export class Devices extends Resource {
  /** Assigns a device (IMEI or MEID) to an end user by email (not a team member's). */
  assign(imei: string, body: DeviceAssignParams, options?: RequestOptions): ApiPromise<DeviceAssignment> {
    return this.call(assignDevice, { params: { imei }, body, options });
  }
}
