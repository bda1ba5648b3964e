import * as z from 'zod/mini';
import { strictObject } from './objects.js';
import { lazy } from './lazy.js';
import { answerObject, e164, notShownRecord, openEnum, paginationParams, suggested, suggestedBody, timestamp } from './common.js';

const PORT_IN_STATUSES = ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;

/** Port-in request (spec part 2). */
const portInSchema = lazy(() =>
  answerObject({
    /** The number being brought in, E.164. */
    portInNumber: z.string(),
    /** Where the port-in stands; a status the SDK does not know yet passes through as a string. */
    status: openEnum(PORT_IN_STATUSES),
    /** The SIM that receives the number. */
    iccid: z.string(),
    /** When it was submitted, ISO 8601. */
    submittedAt: timestamp(),
  }),
);

/** A port-in request (spec part 2). */
export interface PortIn extends z.infer<ReturnType<typeof portInSchema>> {}

export const portInListSchema = lazy(() => z.array(portInSchema()));

export const portInListParamsSchema = lazy(() =>
  strictObject({
    ...paginationParams(),
    status: z.optional(z.enum(PORT_IN_STATUSES)),
  }),
);

/** Query of `portIns.list()`. */
export interface PortInListParams extends z.input<ReturnType<typeof portInListParamsSchema>> {}

/**
 * Body of POST /api/v1.1/port-in/eligibility: not shown (spec part 4, known by name only).
 * Suggested: the number to port, named as on the port-in request (portInNumber, E.164 when
 * given); nothing is required, other fields (an operator, a network …) pass through.
 */
export const portInEligibilityParamsSchema = lazy(() =>
  suggestedBody({
    portInNumber: z.optional(e164()),
  }),
);

/** Body of `portIns.checkEligibility()`: suggested fields, none required (shape not shown). */
export interface PortInEligibilityParams extends z.input<ReturnType<typeof portInEligibilityParamsSchema>> {}

/** Eligibility answer: not shown; the sandbox's fields are named, every field is kept as sent. */
export const portInEligibilitySchema = lazy(() => notShownRecord(['portInNumber', 'eligible', 'reason']));

/** Answer of `portIns.checkEligibility()`: not shown; the sandbox's fields, any JSON value each (see docs/shapes.md). */
export interface PortInEligibility extends z.infer<ReturnType<typeof portInEligibilitySchema>> {}

/**
 * Body of POST /api/v3/port-in: not shown (spec part 4, known by name only). Suggested: the
 * port-in request's fields, portInNumber (E.164 when given, spec part 2) and iccid (sent as
 * given: the server judges it); none is required, other fields pass through.
 */
export const portInSubmitParamsSchema = lazy(() =>
  suggestedBody({
    portInNumber: z.optional(e164()),
    iccid: suggested<string>(),
  }),
);

/** Body of `portIns.submit()`: suggested fields, none required (shape not shown). */
export interface PortInSubmitParams extends z.input<ReturnType<typeof portInSubmitParamsSchema>> {}
