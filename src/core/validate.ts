import { type z, safeParse } from 'zod/mini';
import { RequestValidationError, ResponseValidationError, type ValidationIssue } from './errors.js';
import { unknownOptionMessage } from '../shared/option-names.js';
import { zodMessages } from '../schemas/messages.js';

/** zod issues as the SDK's readable issues: a dotted path and a message. */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join('.'),
    message: issue.message,
  }));
}

/** The members an object schema declares (its shape), read from the schema an issue names. */
function declaredNames(schema: unknown): object {
  return (schema as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape ?? {};
}

/**
 * "is required" reads better than "expected string, received undefined" for an absent field, and
 * a member the schema does not declare is named with the nearest one it does, as `kind`
 * (`query parameter`, `field`): `unknown query parameter pagesize: did you mean pageSize?`.
 */
function inputErrors(kind: string): z.core.$ZodErrorMap {
  return (issue) => {
    if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => unknownOptionMessage(kind, key, declaredNames(issue.inst))).join('; ');
    return zodMessages(issue);
  };
}

/**
 * Parses a caller's input, or throws RequestValidationError before anything is sent. `prefix`
 * names where the input sits (`body`); `kind` what its members are, for an unknown one.
 */
export function parseInput<S extends z.core.$ZodType>(schema: S, value: unknown, context: string, prefix: string, kind: string): z.output<S> {
  const parsed = safeParse(schema, value);
  if (parsed.success) return parsed.data;
  // The SDK's own, friendlier messages cost a per-call error map, so only a refused input pays for them.
  const explained = safeParse(schema, value, { error: inputErrors(kind) });
  const issues = toValidationIssues((explained.error ?? parsed.error).issues).map((issue) => ({
    ...issue,
    path: prefix && issue.path ? `${prefix}.${issue.path}` : prefix || issue.path,
  }));
  throw new RequestValidationError(issues, context);
}

/**
 * A lone UTF-16 surrogate: no URL can carry it (percent-encoding throws URIError), and UTF-8 text
 * has none (encoding would send U+FFFD, a value the caller did not write). Refused wherever text
 * goes into a URL: a path parameter, a query value, `client.request()`'s path.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/** What a caller is told of text with a lone surrogate. */
export const LONE_SURROGATE_PROBLEM = 'must be well-formed text (it contains a lone UTF-16 surrogate)';

/** Whether `value` holds a lone UTF-16 surrogate (a high one not followed by a low one, or a low one alone). */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

function pathParamProblem(value: string | number): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'must be a finite number';
  if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty string';
  return hasLoneSurrogate(value) ? LONE_SURROGATE_PROBLEM : undefined;
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

/** RFC 3986 `path-absolute` characters: unreserved, sub-delims, ':', '@', '/' and %XX escapes. */
const SAFE_PATH = /^(?:\/(?:[\w\-.~!$&'()*+,;=:@]|%[0-9A-F]{2})*)+$/i;
/** Characters a path carries raw (RFC 3986 pchar or '/'), by code. */
const RAW_PATH_CHARS = new Uint8Array(0x80);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/") RAW_PATH_CHARS[char.charCodeAt(0)] = 1;
/** '.' or '..': navigation, resolved away by URL parsing, never data. */
const DOT_SEGMENT = /^\.{1,2}$/;
/** '.' or '..' spelled with %2E, as path parameters are encoded: data, but WHATWG URL parsing still resolves it. */
const ENCODED_DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** Whether the path goes on as it is at `index`: a raw character, or a %XX escape. */
function keptAt(path: string, index: number): boolean {
  const code = path.charCodeAt(index);
  if (code < 0x80 && RAW_PATH_CHARS[code] === 1) return true;
  return code === 0x25 /* % */ && isHexDigit(path.charCodeAt(index + 1)) && isHexDigit(path.charCodeAt(index + 2));
}

/** Why a code point that is neither raw nor an escape cannot be sent, or undefined when it is percent-encoded. */
function pathCharProblem(code: number): string | undefined {
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
    return `must not contain control characters (found U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  if (code === 0x23) return "must not contain '#' (a fragment is never sent)";
  if (code === 0x3f) return "must not contain '?': pass query parameters as `query`";
  if (code >= 0xd800 && code <= 0xdfff) return LONE_SURROGATE_PROBLEM;
  if (code === 0x25) return "must not contain '%' except as a %XX escape";
  return undefined;
}

/**
 * The path of `client.request()` as it goes on the wire, identical on both wires: an
 * absolute path of RFC 3986 characters and %XX escapes is sent as given; spaces, non-ASCII text
 * and the other printable characters a path cannot carry raw (`"<>[\]^`{|}`) are percent-encoded
 * (UTF-8); anything that cannot be sent exactly (control
 * characters, '#', '?', a lone '%', a literal '.' or '..' segment, no leading '/') is refused with
 * RequestValidationError before anything is sent.
 */
export function toWirePath(path: unknown, context: string): string {
  if (typeof path === 'string' && SAFE_PATH.test(path) && !hasDotSegment(path)) return path;
  const refuse = (message: string): never => {
    throw new RequestValidationError([{ path: 'path', message }], context);
  };
  if (typeof path !== 'string') return refuse('must be a string');
  if (!path.startsWith('/')) return refuse("must start with '/' (a path relative to the base URL)");
  // One pass: kept text is copied in slices, and each run of characters to encode is checked
  // and encoded whole (encodeURIComponent reads a surrogate pair as one code point).
  let out = '';
  let copied = 0;
  let index = 0;
  while (index < path.length) {
    if (keptAt(path, index)) {
      index += path.charCodeAt(index) === 0x25 ? 3 : 1;
      continue;
    }
    let end = index;
    while (end < path.length && !keptAt(path, end)) {
      const code = path.codePointAt(end) as number;
      const problem = pathCharProblem(code);
      if (problem) return refuse(problem);
      end += code > 0xffff ? 2 : 1;
    }
    out += path.slice(copied, index) + encodeURIComponent(path.slice(index, end));
    copied = index = end;
  }
  out += path.slice(copied);
  if (hasDotSegment(out)) return refuse("must not contain '.' or '..' segments (URL parsing would resolve them)");
  return out;
}

function hasDotSegment(path: string): boolean {
  return path.includes('/.') && path.split('/').some((segment) => DOT_SEGMENT.test(segment));
}

/**
 * Whether a WHATWG URL parser (the `fetch` wire) would drop a segment of this path: a '.' or
 * '..' segment, even spelled %2E. The default wire (undici) sends such a path exactly; the fetch
 * wire cannot, so the call is refused there rather than sent somewhere else.
 */
export function urlParsingAltersPath(path: string): boolean {
  if (!path.includes('/.') && !/\/%2e/i.test(path)) return false;
  const query = path.indexOf('?');
  const pathOnly = query === -1 ? path : path.slice(0, query);
  return pathOnly.split('/').some((segment) => ENCODED_DOT_SEGMENT.test(segment));
}

/** The flags and shapes of `client.request()` besides its path: a string `'false'` must not read as true. */
export function checkRawRequestFields(fields: Record<string, unknown>, context: string): void {
  let issues: ValidationIssue[] | undefined;
  for (const name of ['auth', 'envelope', 'idempotent']) {
    const value = fields[name];
    if (value !== undefined && typeof value !== 'boolean') (issues ??= []).push({ path: name, message: 'must be true or false' });
  }
  const { query, schema } = fields;
  if (query !== undefined && (typeof query !== 'object' || query === null || Array.isArray(query))) {
    (issues ??= []).push({ path: 'query', message: 'must be an object of parameter names to values' });
  }
  if (
    schema !== undefined &&
    (typeof schema !== 'object' || schema === null || typeof (schema as { safeParse?: unknown }).safeParse !== 'function')
  ) {
    (issues ??= []).push({ path: 'schema', message: 'must be a zod schema' });
  }
  if (issues) throw new RequestValidationError(issues, context);
}

/**
 * The fields the SDK itself reads from an answer (a transaction's `status`, an acceptance's
 * `transactionId`) must be strings, whatever `validateResponses` says: with validation off the
 * answer is otherwise trusted as sent, but a missing field would surface as a TypeError from
 * inside the SDK. Returns the data, typed by the caller's schema.
 */
export function requireStringFields<T>(data: T, fields: readonly string[], route: string): T {
  const record = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  if (!record) throw new ResponseValidationError([{ path: '', message: 'expected an object' }], route);
  const issues = fields.filter((field) => typeof record[field] !== 'string').map((field) => ({ path: field, message: 'expected a string' }));
  if (issues.length > 0) throw new ResponseValidationError(issues, route);
  return data;
}
