import * as z from 'zod/mini';
import { strictObject } from './objects.js';
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
    operatorStatus: z.optional(z.string()),
    /** The end user holding the line; absent or null while unassigned. */
    assignedTo: z.optional(z.nullable(answerObject({ email: z.string(), name: z.string() }))),
    /** The device the line is in (IMEI and model); absent or null when none is known. */
    device: z.optional(z.nullable(answerObject({ imei: z.string(), model: z.string() }))),
    /** The SIM group it belongs to, by name; absent or null when none. */
    group: z.optional(z.nullable(z.string())),
    /** When the SIM record was created, ISO 8601. */
    createdAt: timestamp(),
  }),
);

/** A SIM or eSIM line of the account (spec part 2). */
export interface Sim extends z.infer<ReturnType<typeof simSchema>> {}

export const simListSchema = lazy(() => z.array(simSchema()));

/** Query of GET /api/v1.1/sims (spec part 4). */
export const simListParamsSchema = lazy(() =>
  strictObject({
    ...paginationParams(),
    status: z.optional(z.enum(SIM_STATUSES)),
    assignedStatus: z.optional(z.enum(SIM_ASSIGNED_STATUSES)),
    assignedTo: z.optional(emailAddress()),
    search: z.optional(z.string().check(z.minLength(1))),
  }),
);

/** Query of `sims.list()` (spec part 4). */
export interface SimListParams extends z.input<ReturnType<typeof simListParamsSchema>> {}

/**
 * Body of POST /api/v1.1/sims/{iccid}/renew-number: not shown; any fields are passed through.
 * Optional: a call without one sends no body rather than one the caller did not write.
 */
export const renewNumberParamsSchema = lazy(() => z.optional(suggestedBody({})));

/** Body of `sims.renewNumber()`, which takes any JSON fields (shape not shown). */
export interface RenewNumberParams extends NonNullable<z.input<ReturnType<typeof renewNumberParamsSchema>>> {}

/** Result of renew-number: not shown; the sandbox's fields are named, every field is kept as sent. */
export const renewNumberResultSchema = lazy(() => notShownRecord(['iccid', 'phoneNumber', 'previousPhoneNumber']));

/** Answer of `sims.renewNumber()`: not shown; the sandbox's fields, any JSON value each (see docs/shapes.md). */
export interface RenewNumberResult extends z.infer<ReturnType<typeof renewNumberResultSchema>> {}
