import * as z from 'zod/mini';
import { answerObject } from './common.js';
import { lazy } from './lazy.js';

/** Token response data (spec part 2): the one snake_case shape of the API. */
export const tokenResponseSchema = lazy(() =>
  answerObject({
    /** The bearer token (a JWT). Never logged or shown by the client. */
    access_token: z.string(),
    /** `Bearer`. */
    token_type: z.string(),
    /** Seconds the token lives from now (3600). */
    expires_in: z.number(),
    /** When the token expires, ISO 8601. */
    expires_at: z.string(),
  }),
);

/** The token exchange answer, snake_case as on the wire (spec part 2). */
export interface TokenResponse extends z.infer<ReturnType<typeof tokenResponseSchema>> {}
