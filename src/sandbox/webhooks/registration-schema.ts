import { z } from 'zod';
import { retryPolicyInputSchema } from './retry-policy.js';

/** URL schemes each webhookUrls member accepts; voiceStreamUrl is always dialled over WebSocket (spec part 2). */
function urlWithScheme(schemes: readonly string[]) {
  return z.string().refine(
    (value) => {
      try {
        return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `must be an absolute ${schemes.join(', ')} URL` },
  );
}

const httpUrl = urlWithScheme(['http', 'https']);

export const webhookUrlsSchema = z.object({
  messageUrl: httpUrl.optional(),
  callbackMessageUrl: httpUrl.optional(),
  voiceUrl: httpUrl.optional(),
  callbackVoiceUrl: httpUrl.optional(),
  voiceStreamUrl: urlWithScheme(['ws', 'wss', 'http', 'https']).optional(),
});

export type WebhookUrls = z.infer<typeof webhookUrlsSchema>;
export type WebhookUrlName = keyof WebhookUrls;

const required = (name: string) => z.string({ error: `${name} is required` }).min(1, `${name} must not be empty`);

/**
 * The credential the sandbox presents to partner URLs (spec part 5 rule 8). The spec shows only
 * `token` for bearer; basic takes `username` + `password`, api_key takes `key` and an optional
 * `headerName` (default X-API-Key).
 */
export const authenticationSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('bearer'), token: required('authentication.token') }),
  z.object({
    type: z.literal('basic'),
    username: required('authentication.username'),
    password: required('authentication.password'),
  }),
  z.object({
    type: z.literal('api_key'),
    key: required('authentication.key'),
    headerName: z.string().regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name').optional(),
  }),
], { error: 'authentication.type must be one of basic, bearer, api_key, none' });

export type Authentication = z.infer<typeof authenticationSchema>;

export const eventTypeSchema = z.enum(['sms', 'voice', 'both'], { error: 'eventType must be one of sms, voice, both' });
export type RegistrationEventType = z.infer<typeof eventTypeSchema>;

export const registrationStatusSchema = z.enum(['active', 'suspended'], {
  error: 'status must be one of active, suspended',
});
export type RegistrationStatus = z.infer<typeof registrationStatusSchema>;

/** POST /api/v1.1/webhooks body; operator, network and eventType are checked first for MISSING_FIELDS. */
export const createRegistrationSchema = z.object({
  operator: z.string().min(1, 'operator must not be empty'),
  network: z.string().min(1, 'network must not be empty'),
  eventType: eventTypeSchema,
  authentication: authenticationSchema.optional(),
  webhookUrls: webhookUrlsSchema.optional(),
  retryPolicy: retryPolicyInputSchema.optional(),
  status: registrationStatusSchema.optional(),
  update: z.boolean({ error: 'update must be a boolean' }).optional(),
});

/** PUT /api/v1.1/webhooks/{id} body is a subset of the fields; a null webhookUrls member removes that URL. */
export const updateRegistrationSchema = z.object({
  operator: createRegistrationSchema.shape.operator.optional(),
  network: createRegistrationSchema.shape.network.optional(),
  eventType: eventTypeSchema.optional(),
  authentication: authenticationSchema.optional(),
  webhookUrls: z
    .object({
      messageUrl: httpUrl.nullable().optional(),
      callbackMessageUrl: httpUrl.nullable().optional(),
      voiceUrl: httpUrl.nullable().optional(),
      callbackVoiceUrl: httpUrl.nullable().optional(),
      voiceStreamUrl: webhookUrlsSchema.shape.voiceStreamUrl.unwrap().nullable().optional(),
    })
    .optional(),
  retryPolicy: retryPolicyInputSchema.optional(),
  status: registrationStatusSchema.optional(),
});

export type CreateRegistrationBody = z.infer<typeof createRegistrationSchema>;
export type UpdateRegistrationBody = z.infer<typeof updateRegistrationSchema>;

/** Zod issues as the strings of details.validationErrors (spec part 7 rule 2). */
export function validationErrors(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'too_small' || issue.code === 'too_big') {
      const bound = issue.code === 'too_small' ? 'at least' : 'at most';
      return `${path} must be ${bound} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)}`;
    }
    return path && !issue.message.startsWith(path) ? `${path} ${issue.message}` : issue.message;
  });
}
