import * as z from 'zod/mini';
import { strictObject } from './objects.js';
import { lazy } from './lazy.js';
import { answerObject, notShown, notShownRecord, openEnum, paginationParams, timestamp } from './common.js';

const WEBHOOK_EVENT_TYPES = ['sms', 'voice', 'both'] as const;
const WEBHOOK_STATUSES = ['active', 'suspended'] as const;
const WEBHOOK_AUTHENTICATION_TYPES = ['basic', 'bearer', 'api_key', 'none'] as const;
const WEBHOOK_BACKOFF_STRATEGIES = ['fixed', 'linear', 'exponential'] as const;
const DELIVERY_STATUSES = ['PENDING', 'FAILED'] as const;

/**
 * The credential the service presents to the partner URL (spec part 5 rule 8). Values come back
 * masked as `***ENCRYPTED***`. Only bearer's `token` is shown; the members of basic and api_key
 * are not shown: the sandbox's are named, and each member is any JSON value (so that an odd value
 * under one type's name never fails a whole answer); any other member is kept as sent.
 */
const authenticationSchema = lazy(() =>
  answerObject({
    /** `basic`, `bearer`, `api_key` or `none`. */
    type: openEnum(WEBHOOK_AUTHENTICATION_TYPES),
    /**
     * bearer: the token, masked (`***ENCRYPTED***`). Typed `unknown`: one object type holds every
     * authentication type, and what another type puts under this name is not shown.
     */
    token: z.optional(notShown()),
    /** basic (not shown in the spec): the user name, masked. */
    username: z.optional(notShown()),
    /** basic (not shown in the spec): the password, masked. */
    password: z.optional(notShown()),
    /** api_key (not shown in the spec): the key, masked. */
    key: z.optional(notShown()),
    /** api_key (not shown in the spec): the header that carries the key. */
    headerName: z.optional(notShown()),
  }),
);

const webhookUrlsSchema = lazy(() =>
  answerObject({
    /** Where inbound SMS events are delivered. */
    messageUrl: z.optional(z.string()),
    /** A second target of inbound SMS events. */
    callbackMessageUrl: z.optional(z.string()),
    /** Where inbound voice events are delivered. */
    voiceUrl: z.optional(z.string()),
    /** A second target of inbound voice events. */
    callbackVoiceUrl: z.optional(z.string()),
    /** Where the live voice stream connects, always over WebSocket (`ws://`, `wss://`, `http://` or `https://`). */
    voiceStreamUrl: z.optional(z.string()),
  }),
);

const retryPolicySchema = lazy(() =>
  answerObject({
    /** Retries of a failed delivery, 1 to 10; default 3 (spec part 8). */
    maxAttempts: z.optional(z.number()),
    /** `fixed`, `linear` or `exponential` (default). */
    backoffStrategy: z.optional(openEnum(WEBHOOK_BACKOFF_STRATEGIES)),
    /** Delay before the first retry, 1 to 60 s; default 5. */
    initialDelaySeconds: z.optional(z.number()),
    /** Ceiling between retries, 60 to 3600 s; default 300. */
    maxDelaySeconds: z.optional(z.number()),
  }),
);

/** Webhook registration as read, listed or updated: never with signingSecret (spec part 2). */
export const webhookRegistrationSchema = lazy(() =>
  answerObject({
    /** The registration's id. */
    id: z.string(),
    /** The operator whose events it receives; with `network`, the registration's key (one per account). */
    operator: z.string(),
    /** The operator's network whose events it receives. */
    network: z.string(),
    /** `sms`, `voice` or `both`. */
    eventType: openEnum(WEBHOOK_EVENT_TYPES),
    /** The credential the service presents to your URLs; credential values are read back masked as `***ENCRYPTED***`. */
    authentication: z.optional(authenticationSchema()),
    /** Where each kind of event goes. */
    webhookUrls: z.optional(webhookUrlsSchema()),
    /** How failed deliveries are retried (spec part 8). */
    retryPolicy: z.optional(retryPolicySchema()),
    /** `active`, or `suspended` after 10 consecutive failed deliveries. */
    status: z.optional(openEnum(WEBHOOK_STATUSES)),
    /** When it was registered, ISO 8601. */
    createdAt: z.optional(timestamp()),
    /** When it last changed, ISO 8601. */
    updatedAt: z.optional(timestamp()),
  }),
);

/** An operator webhook registration as read, listed or updated: never with signingSecret (spec part 2). */
export interface WebhookRegistration extends z.infer<ReturnType<typeof webhookRegistrationSchema>> {}

export const webhookRegistrationListSchema = lazy(() => z.array(webhookRegistrationSchema()));

/** The create/upsert answer: the one time the signingSecret (`whsec_` + 64 hex) is returned. */
export const webhookRegistrationWithSecretSchema = lazy(() =>
  z.extend(webhookRegistrationSchema(), {
    /** `whsec_` and 64 hex digits: verifies every delivery. Returned by this answer only: store it now. */
    signingSecret: z.string(),
  }),
);

/** The create/upsert answer: the registration plus its one-time signingSecret (spec part 2). */
export interface WebhookRegistrationWithSecret extends z.infer<ReturnType<typeof webhookRegistrationWithSecretSchema>> {}

/** Deletion result: not shown; the sandbox's fields are named, every field is kept as sent. */
export const webhookDeletionSchema = lazy(() => notShownRecord(['id', 'deleted']));

/** Answer of `webhooks.delete()`: not shown; the sandbox's fields, any JSON value each (see docs/shapes.md). */
export interface WebhookDeletion extends z.infer<ReturnType<typeof webhookDeletionSchema>> {}

/** Delivery record, metadata only (spec part 2). Pending deliveries have no response yet. */
export const webhookDeliverySchema = lazy(() =>
  answerObject({
    /** The delivery's id. */
    deliveryId: z.string(),
    /** The registration it was sent for. */
    webhookId: z.string(),
    /** The event delivered. */
    eventType: z.string(),
    /** `PENDING` or `FAILED` occur; a newer status passes through as a string. */
    status: openEnum(DELIVERY_STATUSES),
    /** Your endpoint's HTTP status; absent or null before an answer. */
    responseCode: z.optional(z.nullable(z.number())),
    /** Which attempt this is, from 1. */
    attempt: z.number(),
    /** When it was delivered, ISO 8601; absent or null while pending. */
    deliveredAt: z.optional(z.nullable(timestamp())),
  }),
);

/** A delivery record, metadata only (spec part 2). */
export interface WebhookDelivery extends z.infer<ReturnType<typeof webhookDeliverySchema>> {}

export const webhookDeliveryListSchema = lazy(() => z.array(webhookDeliverySchema()));

/** The test operation's answer: "one synthetic delivery"; its fields are typed when present. */
export const webhookTestResultSchema = lazy(() => z.partial(webhookDeliverySchema()));

/** Answer of `webhooks.test()`: the synthetic delivery's fields, when present. */
export interface WebhookTestResult extends z.infer<ReturnType<typeof webhookTestResultSchema>> {}

// ---- request side (strict enums and bounds of spec part 8) ----

/** Whitespace and control characters, which a URL parser would drop or the server would have to refuse. */
const URL_FORBIDDEN = /[\p{White_Space}\p{Cc}]/u;

/**
 * `new URL()`, not `URL.canParse()`: on Node 20, once optimized, `URL.canParse` misreads a string
 * holding Latin-1 letters (`https://münchen.example/`) and answers false.
 */
function parsesAsUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The URL rule of docs/shapes.md: an absolute URL written `scheme://` with one of `schemes`
 * (any case), no whitespace or control character anywhere, that a WHATWG URL parser accepts. A
 * parser would also take ` http:example.com` and make `http://example.com/` of it; a URL the
 * caller did not write is never what is stored.
 */
function urlWithScheme(schemes: readonly string[]) {
  const written = new RegExp(`^(?:${schemes.join('|')})://`, 'i');
  return z
    .string()
    .check(
      z.refine(
        (value) => written.test(value) && !URL_FORBIDDEN.test(value) && parsesAsUrl(value),
        `must be a ${schemes.map((scheme) => `${scheme}://`).join(', ')} URL`,
      ),
    );
}
const httpUrl = lazy(() => urlWithScheme(['http', 'https']));
const streamUrl = lazy(() => urlWithScheme(['ws', 'wss', 'http', 'https']));

/** What a read answers in place of a credential (spec part 2); sent back, it would become the credential. */
const MASKED_CREDENTIAL = '***ENCRYPTED***';

const credential = lazy(() =>
  z.string().check(
    z.minLength(1),
    z.refine((value) => value !== MASKED_CREDENTIAL, `must be the credential itself, not the masked ${MASKED_CREDENTIAL}`),
  ),
);

/**
 * `authentication` as sent: replaced whole on update. bearer needs its `token` (spec part 2). The
 * members of basic and api_key are not shown (spec part 4); one choice, held by the client and
 * the sandbox alike (docs/shapes.md): basic takes `username` and `password`, api_key takes `key`
 * and an optional `headerName`, each credential required, and no other member.
 */
const authenticationInputSchema = lazy((): z.ZodMiniType<WebhookAuthenticationParams, WebhookAuthenticationParams> =>
  z.discriminatedUnion('type', [
    strictObject({ type: z.literal('none') }),
    strictObject({ type: z.literal('bearer'), token: credential() }),
    strictObject({ type: z.literal('basic'), username: credential(), password: credential() }),
    strictObject({
      type: z.literal('api_key'),
      key: credential(),
      headerName: z.optional(z.string().check(z.regex(/^[A-Z0-9-]+$/i, 'must be an HTTP header name'))),
    }),
  ]),
);

/** The service sends no credential to your endpoint. */
export interface WebhookNoAuthentication {
  type: 'none';
}

/** The service sends `Authorization: Bearer <token>`. */
export interface WebhookBearerAuthentication {
  type: 'bearer';
  /** The token itself (never the masked `***ENCRYPTED***` a read answers). */
  token: string;
}

/** The service sends HTTP Basic credentials (members not shown in the spec: see docs/shapes.md). */
export interface WebhookBasicAuthentication {
  type: 'basic';
  /** The user name itself (never the masked `***ENCRYPTED***` a read answers). */
  username: string;
  /** The password itself. */
  password: string;
}

/** The service sends a key in a header of your choice (members not shown in the spec: see docs/shapes.md). */
export interface WebhookApiKeyAuthentication {
  type: 'api_key';
  /** The key itself. */
  key: string;
  /** The header that carries it, e.g. `X-Api-Key`; the server's default when absent. */
  headerName?: string | undefined;
}

/**
 * How the webhook service authenticates to your endpoint (spec part 5 rule 8), as sent in
 * `create()` and `update()`: replaced whole on update.
 */
export type WebhookAuthenticationParams =
  WebhookNoAuthentication | WebhookBearerAuthentication | WebhookBasicAuthentication | WebhookApiKeyAuthentication;

const webhookUrlsInputSchema = lazy(() =>
  strictObject({
    messageUrl: z.optional(httpUrl()),
    callbackMessageUrl: z.optional(httpUrl()),
    voiceUrl: z.optional(httpUrl()),
    callbackVoiceUrl: z.optional(httpUrl()),
    voiceStreamUrl: z.optional(streamUrl()),
  }),
);

/** On update the URLs are merged member by member, and `null` removes one. */
const webhookUrlsUpdateSchema = lazy(() =>
  strictObject({
    messageUrl: z.optional(z.nullable(httpUrl())),
    callbackMessageUrl: z.optional(z.nullable(httpUrl())),
    voiceUrl: z.optional(z.nullable(httpUrl())),
    callbackVoiceUrl: z.optional(z.nullable(httpUrl())),
    voiceStreamUrl: z.optional(z.nullable(streamUrl())),
  }),
);

/** Bounds of spec part 8; on update merged over the current policy. */
const retryPolicyInputSchema = lazy(() =>
  strictObject({
    maxAttempts: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(10))),
    backoffStrategy: z.optional(z.enum(WEBHOOK_BACKOFF_STRATEGIES)),
    initialDelaySeconds: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(60))),
    maxDelaySeconds: z.optional(z.number().check(z.int(), z.minimum(60), z.maximum(3600))),
  }),
);

/**
 * Body of POST /api/v1.1/webhooks: the registration fields of spec part 2, no others.
 * operator, network and eventType are required in practice (spec part 4).
 */
export const webhookCreateParamsSchema = lazy(() =>
  strictObject({
    operator: z.string().check(z.minLength(1)),
    network: z.string().check(z.minLength(1)),
    eventType: z.enum(WEBHOOK_EVENT_TYPES),
    authentication: z.optional(authenticationInputSchema()),
    webhookUrls: z.optional(webhookUrlsInputSchema()),
    retryPolicy: z.optional(retryPolicyInputSchema()),
    status: z.optional(z.enum(WEBHOOK_STATUSES)),
    /** true overwrites an existing registration of the same operator and network. */
    update: z.optional(z.boolean()),
  }),
);

/** Body of `webhooks.create()`: the registration fields of spec part 2. */
export interface WebhookCreateParams extends z.input<ReturnType<typeof webhookCreateParamsSchema>> {}

/**
 * Body of PUT /api/v1.1/webhooks/{id}, which takes any subset of the registration fields, no others
 * (`update`, `id`, `signingSecret` are refused). `authentication` is replaced whole, `webhookUrls`
 * merged (`null` removes a URL), `retryPolicy` merged; `status: 'active'` lifts a suspension.
 */
export const webhookUpdateParamsSchema = lazy(() =>
  strictObject({
    operator: z.optional(z.string().check(z.minLength(1))),
    network: z.optional(z.string().check(z.minLength(1))),
    eventType: z.optional(z.enum(WEBHOOK_EVENT_TYPES)),
    authentication: z.optional(authenticationInputSchema()),
    webhookUrls: z.optional(webhookUrlsUpdateSchema()),
    retryPolicy: z.optional(retryPolicyInputSchema()),
    status: z.optional(z.enum(WEBHOOK_STATUSES)),
  }),
);

/** Body of `webhooks.update()`: exactly what PUT applies. */
export interface WebhookUpdateParams extends z.input<ReturnType<typeof webhookUpdateParamsSchema>> {}

/** Body of POST /api/v1.1/webhooks/{id}/test: names the synthetic event (spec part 4). */
export const webhookTestParamsSchema = lazy(() => strictObject({ eventType: z.literal('webhook.test') }));

/** Query of GET /api/v1.1/webhooks: page and pageSize like every list (spec part 1 rule 5, bounds of part 8). */
export const webhookListParamsSchema = lazy(() => strictObject(paginationParams()));

/** Query of `webhooks.list()`. */
export interface WebhookListParams extends z.input<ReturnType<typeof webhookListParamsSchema>> {}

/**
 * Query of GET /api/v1.1/webhook-deliveries: page and pageSize like every list (spec part 1 rule
 * 5, bounds of part 8), and the two filters of part 4. `status` is open: the spec says "for
 * example FAILED".
 */
export const webhookDeliveryListParamsSchema = lazy(() =>
  strictObject({
    ...paginationParams(),
    webhookId: z.optional(z.string().check(z.minLength(1))),
    status: z.optional(z.string().check(z.minLength(1))),
  }),
);

/** Query of `webhooks.deliveries.list()`. */
export interface WebhookDeliveryListParams extends z.input<ReturnType<typeof webhookDeliveryListParamsSchema>> {}
