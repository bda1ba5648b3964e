/** Envelope and pagination helpers behind ctx.ok / ctx.fail / ctx.paginate. */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AnswerInit, PageMeta, SandboxCtx } from './context.js';
import { type NumberRule, parseNumberText } from './option-grammar.js';

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

/** spec part 8: page >= 1, pageSize 1..100; a page past 2^53 − 1 is no longer the number written. */
const PAGE: NumberRule = { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER };
const PAGE_SIZE: NumberRule = { integer: true, min: 1, max: 100 };

/**
 * page and pageSize (spec part 8), each decimal digits in its range when present (the one text
 * grammar of option-grammar.ts: `page=01`, `page=+1` and `page=` are no pages); defaults 1 and 20.
 */
function parsePagination(query: Record<string, string | undefined>, defaultPageSize = 20): PageParse {
  const errors: string[] = [];
  const read = (name: string, fallback: number, rule: NumberRule): number => {
    const raw = query[name];
    if (raw === undefined) return fallback;
    const parsed = parseNumberText(raw, rule);
    if (typeof parsed === 'number') return parsed;
    errors.push(`${name} must be ${parsed.expected} (got ${JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)})`);
    return fallback;
  };
  const page = read('page', 1, PAGE);
  const pageSize = read('pageSize', defaultPageSize, PAGE_SIZE);
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
