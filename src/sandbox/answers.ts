/** Envelope and pagination helpers behind ctx.ok / ctx.fail / ctx.paginate. */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AnswerInit, PageMeta, SandboxCtx } from './context.js';

export function ok(c: SandboxCtx, data: unknown, init: AnswerInit = {}): Response {
  const body: Record<string, unknown> = { success: true, data };
  if (init.meta) body.meta = init.meta;
  return c.json(body, init.status ?? 200, init.headers);
}

export function fail(c: SandboxCtx, status: ContentfulStatusCode, code: string, message: string, details?: Record<string, unknown>): Response {
  const error: Record<string, unknown> = { code, message };
  // spec part 7 rule 2: details never on 5xx
  if (details && status < 500) error.details = details;
  return c.json({ success: false, error }, status);
}

/**
 * The JSON object body with every required field present (not absent, null or ''), or the 400
 * answer: VALIDATION_ERROR for a body that is not an object, MISSING_FIELDS naming the absent
 * fields in details.validationErrors (spec part 7 rule 2) otherwise.
 */
export function requireBody(c: SandboxCtx, body: Record<string, unknown> | null, names: readonly string[] = []): Record<string, unknown> | Response {
  if (!body) return fail(c, 400, 'VALIDATION_ERROR', 'Body must be a JSON object', { validationErrors: ['body must be a JSON object'] });
  const missing = names.filter((n) => body[n] === undefined || body[n] === null || body[n] === '');
  if (missing.length === 0) return body;
  return fail(c, 400, 'MISSING_FIELDS', `Missing required fields: ${missing.join(', ')}`, {
    validationErrors: missing.map((n) => `${n} is required`),
  });
}

type PageParse = { ok: true; page: number; pageSize: number } | { ok: false; validationErrors: string[] };

const INTEGER = /^-?\d+$/;

/** spec part 8: page >= 1, pageSize 1..100; defaults 1 and 20. */
function parsePagination(query: Record<string, string | undefined>, defaultPageSize = 20): PageParse {
  const errors: string[] = [];
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = query[name];
    if (raw === undefined || raw === '') return fallback;
    if (!INTEGER.test(raw)) {
      errors.push(`${name} must be an integer`);
      return fallback;
    }
    const value = Number(raw);
    // Past 2^53 the number read is no longer the one written (the client refuses those too).
    if (!Number.isSafeInteger(value)) {
      errors.push(`${name} must be a safe integer`);
      return fallback;
    }
    if (value < min || value > max) {
      errors.push(max === Infinity ? `${name} must be >= ${min}` : `${name} must be between ${min} and ${max}`);
    }
    return value;
  };
  const page = read('page', 1, 1, Infinity);
  const pageSize = read('pageSize', defaultPageSize, 1, 100);
  return errors.length > 0 ? { ok: false, validationErrors: errors } : { ok: true, page, pageSize };
}

function pageOf<T>(items: readonly T[], page: number, pageSize: number, toWire?: (item: T) => unknown): { items: unknown[]; meta: PageMeta } {
  const total = items.length;
  const start = (page - 1) * pageSize;
  const slice = items.slice(start, start + pageSize);
  return {
    items: toWire ? slice.map(toWire) : slice,
    meta: { page, pageSize, total, totalPages: Math.ceil(total / pageSize) },
  };
}

/** One page of `items`, each turned into its wire shape by `toWire` when given: only the page's items are. */
export function paginate<T>(c: SandboxCtx, items: readonly T[], toWire?: (item: T) => unknown): Response {
  const parsed = parsePagination(c.req.query());
  if (!parsed.ok) {
    return fail(c, 400, 'VALIDATION_ERROR', 'Invalid pagination parameters', {
      validationErrors: parsed.validationErrors,
    });
  }
  const { items: pageItems, meta } = pageOf(items, parsed.page, parsed.pageSize, toWire);
  return ok(c, pageItems, { meta: { ...meta } });
}

/** Default error code for a forced or injected status without one. */
export function defaultCode(status: number): string {
  switch (status) {
    case 400:
      return 'VALIDATION_ERROR';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 429:
      return 'RATE_LIMITED';
    case 501:
      return 'NOT_IMPLEMENTED';
    case 502:
      return 'DELIVERY_FAILED';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR';
  }
}
