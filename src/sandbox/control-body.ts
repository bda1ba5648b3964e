/**
 * Answers and body parsing of the control API (/_sandbox/): plain JSON without the partner
 * envelope; a bad body is 400 `{ error: 'invalid body', issues }`, one string per problem, each
 * naming its field (unknown fields are named with the allowed ones).
 */
import type { z } from 'zod';
import type { SandboxCtx } from './context.js';

/** One string per issue, `<field>: <problem>`; `root` names the whole value (`body` over HTTP). */
export function controlIssues(error: z.ZodError, root = 'body'): string[] {
  return error.issues.map((i) => `${i.path.join('.') || root}: ${i.message}`);
}

/**
 * The in-process form of a 400: a RangeError when every problem is a number out of bounds, a
 * TypeError otherwise (unknown members, wrong types), named after the method.
 */
export function inProcessError(method: string, issues: string[], outOfRange = false): Error {
  const message = `${method}: ${issues.join('; ')}`;
  return outOfRange ? new RangeError(message) : new TypeError(message);
}

/** `input` checked by `schema`, or the in-process error naming `method`. */
export function parseInProcess<T>(method: string, schema: z.ZodType<T>, input: unknown, root = 'input'): T {
  const parsed = schema.safeParse(input === undefined ? {} : input);
  if (parsed.success) return parsed.data;
  const outOfRange = parsed.error.issues.every((i) => i.code === 'too_big' || i.code === 'too_small');
  throw inProcessError(method, controlIssues(parsed.error, root), outOfRange);
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
