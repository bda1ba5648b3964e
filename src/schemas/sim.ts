import * as z from 'zod';
import { lazy } from './lazy.js';
import { answerObject, emailAddress, notShownRecord, openEnum, paginationParams, suggestedBody, timestamp } from './common.js';

const SIM_STATUSES = ['ACTIVE', 'INACTIVE', 'EXPIRED'] as const;
const SIM_ASSIGNED_STATUSES = ['ASSIGNED', 'UNASSIGNED'] as const;

/** SIM (spec part 2). assignedTo, device and group are absent or null while unassigned. */
const simSchema = lazy(() =>
  answerObject({
    /** The SIM's ICCID: the id every SIM route takes. */
    iccid: z.string(),
    /** The line's number, E.164. */
    phoneNumber: z.string(),
    /** `ACTIVE`, `INACTIVE` or `EXPIRED`; a status the SDK does not know yet passes through as a string. */
    status: openEnum(SIM_STATUSES),
    /** Whether an end user holds the line: `ASSIGNED` or `UNASSIGNED`. */
    assignedStatus: openEnum(SIM_ASSIGNED_STATUSES),
    /** True for an eSIM (its activation QR comes from `client.esim.retrieveQr()`). */
    isEsim: z.boolean(),
    /** The operator carrying the line. */
    operator: z.string(),
    /** The operator's network the line is on. */
    network: z.string(),
    /** The operator's own status of the line, when it reports one. */
    operatorStatus: z.string().optional(),
    /** The end user holding the line; absent or null while unassigned. */
    assignedTo: answerObject({ email: z.string(), name: z.string() }).nullable().optional(),
    /** The device the line is in (IMEI and model); absent or null when none is known. */
    device: answerObject({ imei: z.string(), model: z.string() }).nullable().optional(),
    /** The SIM group it belongs to, by name; absent or null when none. */
    group: z.string().nullable().optional(),
    /** When the SIM record was created, ISO 8601. */
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
    assignedTo: emailAddress().optional(),
    search: z.string().min(1).optional(),
  }),
);

/** Query of `sims.list()` (spec part 4). */
export interface SimListParams extends z.input<ReturnType<typeof simListParamsSchema>> {}

/**
 * Body of POST /api/v1.1/sims/{iccid}/renew-number: not shown; any fields are passed through.
 * Optional: a call without one sends no body rather than one the caller did not write.
 */
export const renewNumberParamsSchema = lazy(() => suggestedBody({}).optional());

/** Body of `sims.renewNumber()`, which takes any JSON fields (shape not shown). */
export interface RenewNumberParams extends NonNullable<z.input<ReturnType<typeof renewNumberParamsSchema>>> {}

/** Result of renew-number: not shown; the sandbox's fields are named, every field is kept as sent. */
export const renewNumberResultSchema = lazy(() => notShownRecord(['iccid', 'phoneNumber', 'previousPhoneNumber']));

/** Answer of `sims.renewNumber()`: not shown; the sandbox's fields, any JSON value each (see docs/shapes.md). */
export interface RenewNumberResult extends z.infer<ReturnType<typeof renewNumberResultSchema>> {}
