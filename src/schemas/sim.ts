import * as z from 'zod';
import { lazy } from './lazy.js';
import { type OpenObject, openEnum, openObjectSchema, paginationParams, suggestedBody, timestamp } from './common.js';

const SIM_STATUSES = ['ACTIVE', 'INACTIVE', 'EXPIRED'] as const;
const SIM_ASSIGNED_STATUSES = ['ASSIGNED', 'UNASSIGNED'] as const;

/** SIM (spec part 2). assignedTo, device and group are absent or null while unassigned. */
const simSchema = lazy(() =>
  z.looseObject({
    iccid: z.string(),
    phoneNumber: z.string(),
    status: openEnum(SIM_STATUSES),
    assignedStatus: openEnum(SIM_ASSIGNED_STATUSES),
    isEsim: z.boolean(),
    operator: z.string(),
    network: z.string(),
    operatorStatus: z.string().optional(),
    assignedTo: z.looseObject({ email: z.string(), name: z.string() }).nullable().optional(),
    device: z.looseObject({ imei: z.string(), model: z.string() }).nullable().optional(),
    group: z.string().nullable().optional(),
    createdAt: timestamp(),
  }),
);

/** A SIM or eSIM line of the account (spec part 2). */
export interface Sim extends z.infer<ReturnType<typeof simSchema>> {}

export const simListSchema = lazy(() => z.array(simSchema()));

/** Query of GET /api/v1.1/sims (spec part 4). */
export const simListParamsSchema = lazy(() =>
  z.strictObject({
    ...paginationParams(),
    status: z.enum(SIM_STATUSES).optional(),
    assignedStatus: z.enum(SIM_ASSIGNED_STATUSES).optional(),
    assignedTo: z.string().min(1).optional(),
    search: z.string().min(1).optional(),
  }),
);

/** Query of `sims.list()` (spec part 4). */
export interface SimListParams extends z.input<ReturnType<typeof simListParamsSchema>> {}

/** Body of POST /api/v1.1/sims/{iccid}/renew-number: not shown; any fields are passed through. */
export const renewNumberParamsSchema = lazy(() => suggestedBody({}));

/** Body of `sims.renewNumber()`, which takes any JSON fields (shape not shown). */
export interface RenewNumberParams extends z.input<ReturnType<typeof renewNumberParamsSchema>> {}

/** Result of renew-number: not shown; an object whose fields are kept as sent. */
export const renewNumberResultSchema = openObjectSchema;

/** Answer of `sims.renewNumber()`: not shown, every field kept as sent. */
export interface RenewNumberResult extends OpenObject {}
