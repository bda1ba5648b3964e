import * as z from 'zod';

/** Token response data (spec part 2): the one snake_case shape of the API. */
export const tokenResponseSchema = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number(),
  expires_at: z.string(),
});

/** The token exchange answer, snake_case as on the wire (spec part 2). */
export interface TokenResponse extends z.infer<typeof tokenResponseSchema> {}
