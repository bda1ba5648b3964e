/**
 * Answers and body parsing of the control API (/_sandbox/): plain JSON without the partner
 * envelope; a bad body is 400 `{ error: 'invalid body', issues }`, one string per problem, each
 * naming its field (unknown fields are named with the allowed ones).
 */
import type { z } from 'zod';
import type { SandboxCtx } from './context.js';

export function controlIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
}

export function controlInvalid(error: z.ZodError | string[]): Response {
  const issues = Array.isArray(error) ? error : controlIssues(error);
  return Response.json({ error: 'invalid body', issues }, { status: 400 });
}

export function controlJson(data: unknown, status = 200): Response {
  return Response.json(data, { status });
}

/** The control body checked by `schema`; an absent body is `{}`. */
export function parseControlBody<T>(c: SandboxCtx, schema: z.ZodType<T>): T | Response {
  const body: unknown = c.get('body');
  const parsed = schema.safeParse(body === undefined ? {} : body);
  return parsed.success ? parsed.data : controlInvalid(parsed.error);
}
