import type { z } from 'zod';

/**
 * Answers of this module's control routes, in the control API's house style (src/sandbox/control.ts):
 * plain JSON without the partner envelope; a bad body is 400 `{ error, issues }`.
 */
export function controlInvalid(error: z.ZodError): Response {
  return Response.json(
    { error: 'invalid body', issues: error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`) },
    { status: 400 },
  );
}

export function controlJson(data: unknown, status = 200): Response {
  return Response.json(data, { status });
}
