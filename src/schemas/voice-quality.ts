import { z } from 'zod';
import { openEnum, paginationParamsSchema, timestamp } from './common.js';

/** Voice quality webhook (spec part 2): id is `vqwh_` plus an opaque token. */
export const voiceQualityWebhookSchema = z.looseObject({
  id: z.string(),
  url: z.string(),
  description: z.string().optional(),
  events: z.array(openEnum(['voice.test.completed'] as const)),
  status: openEnum(['active'] as const),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export type VoiceQualityWebhook = z.infer<typeof voiceQualityWebhookSchema>;

export const voiceQualityWebhookListSchema = z.array(voiceQualityWebhookSchema);

export const voiceQualityWebhookListParamsSchema = paginationParamsSchema;

export type VoiceQualityWebhookListParams = z.input<typeof voiceQualityWebhookListParamsSchema>;
