import { z } from 'zod';

/** eSIM activation (spec part 2); activationCode is null when it was never persisted. */
export const esimActivationSchema = z.looseObject({
  iccid: z.string(),
  qrCodeUrl: z.string(),
  activationCode: z.string().nullable(),
});

export type EsimActivation = z.infer<typeof esimActivationSchema>;

/**
 * Body of POST /api/v1.1/esim: not shown. The plan to provision (planId = the plan's productId)
 * and the end user to assign it to (email) are typed; anything else is passed through.
 */
export const esimProvisionParamsSchema = z.looseObject({
  planId: z.string().min(1).optional(),
  email: z.email().optional(),
});

export type EsimProvisionParams = z.input<typeof esimProvisionParamsSchema>;

/** Result of a COMPLETED provisioning transaction (spec part 2: mdn, iccid and qrCode). */
export const esimProvisioningResultSchema = z.looseObject({
  mdn: z.string(),
  iccid: z.string(),
  qrCode: z.string(),
});

export type EsimProvisioningResult = z.infer<typeof esimProvisioningResultSchema>;
