import * as z from 'zod';
import type { VoiceTestCompletedData } from './event-types.js';

/**
 * The check of a voice.test.completed body (spec part 6: a string `id`, every other field kept),
 * as the web entry has exported it: a schema of zod's classic API, for a partner who composes it
 * with schemas of their own. The receiver checks with `voiceTestCompletedDataSchema`, the same
 * rule in `zod/mini` (event-types.ts). Both calls are marked pure so that a Worker which does not
 * import this schema does not bundle zod's classic API for it.
 */
export const voiceTestCompletedSchema = /* @__PURE__ */ z.looseObject({
  id: /* @__PURE__ */ z.string().min(1),
}) satisfies z.ZodType<VoiceTestCompletedData>;
