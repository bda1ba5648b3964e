import * as z from 'zod/mini';
import { looseObject } from './objects.js';
import { answerObject, emailAddress } from './common.js';
import { lazy } from './lazy.js';

/** Device assignment (spec part 2). */
export const deviceAssignmentSchema = lazy(() =>
  answerObject({
    /** The device's IMEI (or MEID). */
    imei: z.string(),
    /** The end user it is now assigned to. */
    assignedTo: answerObject({ name: z.string(), email: z.string() }),
  }),
);

/** A device assigned to an end user (spec part 2). */
export interface DeviceAssignment extends z.infer<ReturnType<typeof deviceAssignmentSchema>> {}

/** Body of POST /api/v1.1/devices/{imei}/assign: the end user's email (spec part 4). */
export const deviceAssignParamsSchema = lazy(() =>
  looseObject({
    email: emailAddress(),
  }),
);

/** Body of `devices.assign()`: the end user's email. */
export interface DeviceAssignParams extends z.input<ReturnType<typeof deviceAssignParamsSchema>> {}
