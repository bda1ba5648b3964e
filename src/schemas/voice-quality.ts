import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { answerObject, openEnum, paginationParamsSchema, timestamp } from './common.js';

/** Voice quality webhook (spec part 2): id is `vqwh_` plus an opaque token. */
const voiceQualityWebhookSchema = lazy(() =>
  answerObject({
    /** The receiver's id. */
    id: z.string(),
    /** Where reports are delivered. */
    url: z.string(),
    /** Your description of it. */
    description: z.optional(z.string()),
    /** The events it receives: `voice.test.completed`. */
    events: z.array(openEnum(['voice.test.completed'] as const)),
    /** `active`; a newer status passes through as a string. */
    status: openEnum(['active'] as const),
    /** When it was created, ISO 8601. */
    createdAt: timestamp(),
    /** When it last changed, ISO 8601. */
    updatedAt: timestamp(),
  }),
);

/** A receiver of voice.test.completed reports (spec part 2). */
export interface VoiceQualityWebhook extends z.infer<ReturnType<typeof voiceQualityWebhookSchema>> {}

export const voiceQualityWebhookListSchema = lazy(() => z.array(voiceQualityWebhookSchema()));

export const voiceQualityWebhookListParamsSchema = lazy(() => paginationParamsSchema());

/** Query of `voiceQuality.webhooks.list()`. */
export interface VoiceQualityWebhookListParams extends z.input<ReturnType<typeof voiceQualityWebhookListParamsSchema>> {}
