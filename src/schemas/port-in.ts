import { z } from 'zod';
import { lazy } from './lazy.js';
import { e164, openEnum, openObjectSchema, paginationParams, suggestedBody, timestamp } from './common.js';

export const PORT_IN_STATUSES = ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;

/** Port-in request (spec part 2). */
export const portInSchema = lazy(() => z.looseObject({
  portInNumber: z.string(),
  status: openEnum(PORT_IN_STATUSES),
  iccid: z.string(),
  submittedAt: timestamp(),
}));

export type PortIn = z.infer<ReturnType<typeof portInSchema>>;

export const portInListSchema = lazy(() => z.array(portInSchema()));

export const portInListParamsSchema = lazy(() => z.strictObject({
  ...paginationParams(),
  status: z.enum(PORT_IN_STATUSES).optional(),
}));

export type PortInListParams = z.input<ReturnType<typeof portInListParamsSchema>>;

/**
 * Body of POST /api/v1.1/port-in/eligibility: not shown (spec part 4, known by name only).
 * Suggested: the number to port, named as on the port-in request (portInNumber, E.164 when
 * given); nothing is required, other fields (an operator, a network …) pass through.
 */
export const portInEligibilityParamsSchema = lazy(() => suggestedBody({
  portInNumber: e164().optional(),
}));

export type PortInEligibilityParams = z.input<ReturnType<typeof portInEligibilityParamsSchema>>;

/** Eligibility answer: not shown; an object whose fields are kept as sent. */
export const portInEligibilitySchema = openObjectSchema;

export type PortInEligibility = z.infer<ReturnType<typeof portInEligibilitySchema>>;

/**
 * Body of POST /api/v3/port-in: not shown (spec part 4, known by name only). Suggested: the
 * port-in request's fields, portInNumber (E.164 when given) and iccid; none is required, other
 * fields pass through.
 */
export const portInSubmitParamsSchema = lazy(() => suggestedBody({
  portInNumber: e164().optional(),
  iccid: z.string().min(1).optional(),
}));

export type PortInSubmitParams = z.input<ReturnType<typeof portInSubmitParamsSchema>>;
