import { z } from 'zod';
import { lazy } from './lazy.js';
import { e164, openEnum, paginationParams, timestamp } from './common.js';

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
 * Body of POST /api/v1.1/port-in/eligibility: not shown. The number to port is the one field the
 * spec names for port-ins (portInNumber, E.164); the operator and network of the target line
 * are passed through when given.
 */
export const portInEligibilityParamsSchema = lazy(() => z.looseObject({
  portInNumber: e164(),
}));

export type PortInEligibilityParams = z.input<ReturnType<typeof portInEligibilityParamsSchema>>;

/** Eligibility answer: not shown; an `eligible` flag is typed when present. */
export const portInEligibilitySchema = lazy(() => z.looseObject({
  eligible: z.boolean().optional(),
  portInNumber: z.string().optional(),
  reason: z.string().optional(),
}));

export type PortInEligibility = z.infer<ReturnType<typeof portInEligibilitySchema>>;

/** Body of POST /api/v3/port-in: not shown; the port-in request's portInNumber and iccid. */
export const portInSubmitParamsSchema = lazy(() => z.looseObject({
  portInNumber: e164(),
  iccid: z.string().min(1),
}));

export type PortInSubmitParams = z.input<ReturnType<typeof portInSubmitParamsSchema>>;
