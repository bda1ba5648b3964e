import * as z from 'zod/mini';
import { strictObject } from './objects.js';
import { lazy } from './lazy.js';
import { answerObject, e164 } from './common.js';

/** SMS send result (spec part 2). */
export const smsSendResultSchema = lazy(() =>
  answerObject({
    /** The server's confirmation, in words. */
    message: z.string(),
  }),
);

/** Answer of `sms.send()` (spec part 2). */
export interface SmsSendResult extends z.infer<ReturnType<typeof smsSendResultSchema>> {}

/** Body of POST /api/v1.1/sms: all three fields required (spec part 4). */
export const smsSendParamsSchema = lazy(() =>
  strictObject({
    fromNumber: e164(),
    toNumber: e164(),
    text: z.string().check(z.minLength(1)),
  }),
);

/** Body of `sms.send()`: all three fields required (spec part 4). */
export interface SmsSendParams extends z.input<ReturnType<typeof smsSendParamsSchema>> {}
