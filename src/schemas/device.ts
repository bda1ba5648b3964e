import { z } from 'zod';

/** Device assignment (spec part 2). */
export const deviceAssignmentSchema = z.looseObject({
  imei: z.string(),
  assignedTo: z.looseObject({ name: z.string(), email: z.string() }),
});

export type DeviceAssignment = z.infer<typeof deviceAssignmentSchema>;

/** Body of POST /api/v1.1/devices/{imei}/assign: the end user's email (spec part 4). */
export const deviceAssignParamsSchema = z.looseObject({
  email: z.email(),
});

export type DeviceAssignParams = z.input<typeof deviceAssignParamsSchema>;
