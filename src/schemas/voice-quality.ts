import * as z from 'zod';
import { lazy } from './lazy.js';
import { openEnum, paginationParamsSchema, timestamp } from './common.js';

/** Voice quality webhook (spec part 2): id is `vqwh_` plus an opaque token. */
const voiceQualityWebhookSchema = lazy(() =>
  z.looseObject({
    id: z.string(),
    url: z.string(),
    description: z.string().optional(),
    events: z.array(openEnum(['voice.test.completed'] as const)),
    status: openEnum(['active'] as const),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  }),
);

/** A receiver of voice.test.completed reports (spec part 2). */
export interface VoiceQualityWebhook extends z.infer<ReturnType<typeof voiceQualityWebhookSchema>> {}

export const voiceQualityWebhookListSchema = lazy(() => z.array(voiceQualityWebhookSchema()));

export const voiceQualityWebhookListParamsSchema = lazy(() => paginationParamsSchema());

/** Query of `voiceQuality.webhooks.list()`. */
export interface VoiceQualityWebhookListParams extends z.input<ReturnType<typeof voiceQualityWebhookListParamsSchema>> {}
