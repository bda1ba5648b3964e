import type { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from './errors.js';

/** zod issues as the SDK's readable issues: a dotted path and a message. */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join('.'),
    message: issue.message,
  }));
}

/** "is required" reads better than "expected string, received undefined" for an absent field. */
const inputErrors: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined;

/** Parses a caller's input, or throws RequestValidationError before anything is sent. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, context: string, prefix = ''): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // The friendlier messages cost a per-call error map, so only a refused input pays for them.
  const explained = schema.safeParse(value, { error: inputErrors });
  const issues = toValidationIssues((explained.error ?? parsed.error).issues).map((issue) => ({
    ...issue,
    path: prefix && issue.path ? `${prefix}.${issue.path}` : prefix || issue.path,
  }));
  throw new RequestValidationError(issues, context);
}

/** A lone UTF-16 surrogate: no URL can carry it (percent-encoding throws URIError). */
const LONE_SURROGATE = /\p{Cs}/u;

function pathParamProblem(value: string | number): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'must be a finite number';
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
  return LONE_SURROGATE.test(value) ? 'must be well-formed text (it contains a lone UTF-16 surrogate)' : undefined;
}

/**
 * Path parameters must be non-blank (an empty iccid or email would silently address the
 * collection instead of one record) and encodable as a URL segment.
 */
export function checkPathParams(params: Record<string, string | number> | undefined, context: string): void {
  if (!params) return;
  let issues: ValidationIssue[] | undefined;
  for (const [name, value] of Object.entries(params)) {
    const problem = pathParamProblem(value);
    if (problem) (issues ??= []).push({ path: name, message: problem });
  }
  if (issues) throw new RequestValidationError(issues, context);
}
