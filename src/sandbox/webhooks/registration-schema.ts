import * as z from 'zod';
import { closedObject } from '../closed-object.js';
import { MASKED } from './registrations.js';
import { retryPolicyInputSchema } from './retry-policy.js';

/**
 * URL schemes each webhookUrls member accepts; voiceStreamUrl is always dialled over WebSocket
 * (spec part 2). The rule of docs/shapes.md: written `scheme://`, no whitespace or control
 * character, parsed by the URL parser. The parser alone would turn ` http:x.example` into
 * `http://x.example/`, and the stored URL would not be the one the partner sent.
 */
function urlWithScheme(schemes: readonly string[]) {
  return z.string().refine(
    (value) => {
      if ([...value].some((char) => /[\p{White_Space}\p{Cc}]/u.test(char))) return false;
      let protocol: string;
      try {
        protocol = new URL(value).protocol.replace(/:$/, '');
      } catch {
        return false;
      }
      return schemes.includes(protocol) && value.slice(protocol.length, protocol.length + 3) === '://';
    },
    { message: `must be an absolute ${schemes.join(', ')} URL written scheme://` },
  );
}

const httpUrl = urlWithScheme(['http', 'https']);

const webhookUrlsSchema = closedObject(
  {
    messageUrl: httpUrl.optional(),
    callbackMessageUrl: httpUrl.optional(),
    voiceUrl: httpUrl.optional(),
    callbackVoiceUrl: httpUrl.optional(),
    voiceStreamUrl: urlWithScheme(['ws', 'wss', 'http', 'https']).optional(),
  },
  'webhookUrls.',
);

export type WebhookUrls = z.infer<typeof webhookUrlsSchema>;
export type WebhookUrlName = keyof WebhookUrls;

const required = (name: string) => z.string({ error: `${name} is required` }).min(1, `${name} must not be empty`);

/**
 * A credential value. The masked form a read answers (spec part 2) is refused: a registration
 * read, edited and sent back would otherwise store the mask as the credential.
 */
const credential = (name: string) =>
  required(name).refine((value) => value !== MASKED, `${name} must be the credential itself, not the masked ${MASKED}`);

/**
 * The credential the sandbox presents to partner URLs (spec part 5 rule 8). The spec shows only
 * `token` for bearer; basic takes `username` + `password`, api_key takes `key` and an optional
 * `headerName` (default X-API-Key).
 */
const authenticationSchema = z.discriminatedUnion(
  'type',
  [
    closedObject({ type: z.literal('none') }, 'authentication.'),
    closedObject({ type: z.literal('bearer'), token: credential('authentication.token') }, 'authentication.'),
    closedObject(
      {
        type: z.literal('basic'),
        username: credential('authentication.username'),
        password: credential('authentication.password'),
      },
      'authentication.',
    ),
    closedObject(
      {
        type: z.literal('api_key'),
        key: credential('authentication.key'),
        headerName: z
          .string()
          .regex(/^[A-Z0-9-]+$/i, 'must be an HTTP header name')
          .optional(),
      },
      'authentication.',
    ),
  ],
  { error: 'authentication.type must be one of basic, bearer, api_key, none' },
);

export type Authentication = z.infer<typeof authenticationSchema>;

const eventTypeSchema = z.enum(['sms', 'voice', 'both'], { error: 'eventType must be one of sms, voice, both' });
export type RegistrationEventType = z.infer<typeof eventTypeSchema>;

const registrationStatusSchema = z.enum(['active', 'suspended'], {
  error: 'status must be one of active, suspended',
});
export type RegistrationStatus = z.infer<typeof registrationStatusSchema>;

/** POST /api/v1.1/webhooks body; operator, network and eventType are checked first for MISSING_FIELDS. */
export const createRegistrationSchema = closedObject({
  operator: z.string().min(1, 'operator must not be empty'),
  network: z.string().min(1, 'network must not be empty'),
  eventType: eventTypeSchema,
  authentication: authenticationSchema.optional(),
  webhookUrls: webhookUrlsSchema.optional(),
  retryPolicy: retryPolicyInputSchema.optional(),
  status: registrationStatusSchema.optional(),
  update: z.boolean({ error: 'update must be a boolean' }).optional(),
});

/**
 * PUT /api/v1.1/webhooks/{id} takes any subset of the registration fields. `authentication` is replaced
 * whole, `webhookUrls` is merged member by member (null removes that URL), `retryPolicy` is merged
 * over the current policy. `null` anywhere else, and any other member (`update`, `id`, `signingSecret`
 * …), is refused, so what the SDK types as the update body is exactly what is applied.
 */
export const updateRegistrationSchema = closedObject({
  operator: createRegistrationSchema.shape.operator.optional(),
  network: createRegistrationSchema.shape.network.optional(),
  eventType: eventTypeSchema.optional(),
  authentication: authenticationSchema.optional(),
  webhookUrls: closedObject(
    {
      messageUrl: httpUrl.nullable().optional(),
      callbackMessageUrl: httpUrl.nullable().optional(),
      voiceUrl: httpUrl.nullable().optional(),
      callbackVoiceUrl: httpUrl.nullable().optional(),
      voiceStreamUrl: webhookUrlsSchema.shape.voiceStreamUrl.unwrap().nullable().optional(),
    },
    'webhookUrls.',
  ).optional(),
  retryPolicy: retryPolicyInputSchema.optional(),
  status: registrationStatusSchema.optional(),
});

/** Zod issues as the strings of details.validationErrors (spec part 7 rule 2). */
export function validationErrors(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'too_small' || issue.code === 'too_big') {
      const bound = issue.code === 'too_small' ? 'at least' : 'at most';
      return `${path} must be ${bound} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)}`;
    }
    if (issue.code === 'unrecognized_keys') return issue.message;
    return path && !issue.message.startsWith(path) ? `${path} ${issue.message}` : issue.message;
  });
}
