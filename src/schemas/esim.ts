import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { answerObject, suggested, suggestedBody } from './common.js';

/** eSIM activation (spec part 2); activationCode is null when it was never persisted. */
export const esimActivationSchema = lazy(() =>
  answerObject({
    /** The eSIM. */
    iccid: z.string(),
    /** Where the activation QR code image is. */
    qrCodeUrl: z.string(),
    /** The activation code; null when it was never persisted. */
    activationCode: z.nullable(z.string()),
  }),
);

/** Activation QR of an eSIM; `activationCode` is null when never persisted (spec part 2). */
export interface EsimActivation extends z.infer<ReturnType<typeof esimActivationSchema>> {}

/**
 * Body of POST /api/v1.1/esim: not shown (spec part 4, known by name only). Suggested: the plan
 * to provision (planId = the plan's productId) and the end user to assign it to (email). The spec
 * gives neither a type nor a format here, so each is sent as given and the server judges it; none
 * is required, anything else is passed through.
 */
export const esimProvisionParamsSchema = lazy(() =>
  suggestedBody({
    planId: suggested<string>(),
    email: suggested<string>(),
  }),
);

/** Body of `esim.provision()`: suggested fields, none required (shape not shown). */
export interface EsimProvisionParams extends z.input<ReturnType<typeof esimProvisionParamsSchema>> {}

/** Result of a COMPLETED provisioning transaction (spec part 2: mdn, iccid and qrCode). */
export const esimProvisioningResultSchema = lazy(() =>
  answerObject({
    /** The new line's number (MDN). */
    mdn: z.string(),
    /** The provisioned eSIM. */
    iccid: z.string(),
    /** The activation QR code to give the end user. */
    qrCode: z.string(),
  }),
);

/** Result of a COMPLETED eSIM provisioning: mdn, iccid and qrCode (spec part 2). */
export interface EsimProvisioningResult extends z.infer<ReturnType<typeof esimProvisioningResultSchema>> {}
