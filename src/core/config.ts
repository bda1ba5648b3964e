/**
 * One written grammar per option value, shared by client options (ConfigurationError), per-request
 * options and `wait()` options (RequestValidationError). Each check returns what is wrong with a
 * value, or undefined; past these checks the pipeline trusts the values (a delay within the timer
 * range, a header that goes on the wire byte for byte). Names are checked before values: each
 * options object refuses a member its type does not declare, naming the nearest one it does.
 */
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_RETRIES_LIMIT, MIN_POLL_INTERVAL_MS } from './defaults.js';
import { ConfigurationError, RequestValidationError, type ValidationIssue } from './errors.js';
import type { ClientOptions, CloseOptions, RateLimitOptions, WindowLimit } from './options.js';
import type { WaitOptions } from './types.js';
import type { RequestOptions } from './request.js';
import { type OptionNames, unknownOption, unknownOptionMessage } from '../shared/option-names.js';
import { refuseUnknownOptions } from './unknown-options.js';
import { MAX_TIMER_MS } from './sleep.js';
import { describeValue as describe, integerProblem, positiveIntegerProblem } from '../shared/integer-option.js';

type Problem = string | undefined;

const LOG_LEVELS = new Set(['debug', 'info', 'warn', 'error', 'off']);
const VALIDATION_MODES = new Set(['strict', 'off']);

/** RFC 9110 section 5.6.2 `token`: the only characters a field name may have. */
const TOKEN = /^[!#$%&'*+\-.^\w`|~]+$/;
/**
 * A field value both wires (undici and fetch) send exactly: visible ASCII, inner spaces and tabs. No control
 * characters (CR, LF and NUL would split or cut the header; fetch strips a trailing CR), no leading
 * or trailing whitespace (fetch trims it), no non-ASCII (its bytes on the wire would depend on the
 * wire's encoding).
 */
const FIELD_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/;
/** Framing and connection headers belong to the wire; a caller's value would desynchronise it. */
const WIRE_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);
/** Visible ASCII with inner spaces: an Idempotency-Key that goes on the wire unchanged. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** An integer number of milliseconds in [min, MAX_TIMER_MS]. */
function millisecondsProblem(value: unknown, min = 1): Problem {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_TIMER_MS) {
    return `must be an integer number of milliseconds from ${min} to ${MAX_TIMER_MS} (got ${describe(value)})`;
  }
  return undefined;
}

function maxRetriesProblem(value: unknown): Problem {
  return integerProblem(value, 0, MAX_RETRIES_LIMIT);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Issues of a header map, one per bad header, each naming it under `option`. */
function headerIssues(value: unknown, option: string): ValidationIssue[] {
  if (!isRecord(value)) return [{ path: option, message: `must be an object of header names to string values (got ${describe(value)})` }];
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const name of Object.keys(value)) {
    const path = `${option}.${name}`;
    const item = value[name];
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) issues.push({ path, message: 'is not a valid header name (RFC 9110 token characters only)' });
    else if (seen.has(lower)) issues.push({ path, message: 'is given twice (header names are case-insensitive)' });
    else if (WIRE_HEADERS.has(lower)) issues.push({ path, message: 'is set by the HTTP connection and cannot be given' });
    else if (lower === 'idempotency-key') issues.push({ path, message: 'is set by the client: pass the idempotencyKey option of the call instead' });
    // The value itself is never quoted: a header may carry a credential.
    else if (typeof item !== 'string')
      issues.push({ path, message: `must be a string (got a value of type ${item === null ? 'null' : typeof item})` });
    else if (!FIELD_VALUE.test(item)) {
      issues.push({
        path,
        message: 'must be printable ASCII without control characters (CR, LF, NUL…) or leading/trailing whitespace',
      });
    }
    seen.add(lower);
  }
  return issues;
}

function idempotencyKeyProblem(value: unknown): Problem {
  if (typeof value !== 'string') return `must be a string (got ${describe(value)})`;
  if (value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long (got ${value.length})`;
  }
  if (!IDEMPOTENCY_KEY.test(value)) {
    return 'must be printable ASCII without control characters (CR, LF…) or leading/trailing spaces';
  }
  return undefined;
}

function signalProblem(value: unknown): Problem {
  return value instanceof AbortSignal ? undefined : `must be an AbortSignal (got ${describe(value)})`;
}

function functionProblem(value: unknown): Problem {
  return typeof value === 'function' ? undefined : `must be a function (got ${describe(value)})`;
}

function booleanProblem(value: unknown): Problem {
  return typeof value === 'boolean' ? undefined : `must be true or false (got ${describe(value)})`;
}

/** For the key and the secret: the value itself is never quoted. */
function credentialProblem(value: unknown): Problem {
  return typeof value === 'string' ? undefined : `must be a string (got a value of type ${value === null ? 'null' : typeof value})`;
}

function oneOfProblem(value: unknown, allowed: ReadonlySet<string>): Problem {
  return typeof value === 'string' && allowed.has(value)
    ? undefined
    : `must be one of ${[...allowed].map((item) => `'${item}'`).join(', ')} (got ${describe(value)})`;
}

/** A base URL path that already names the API's versions: every route adds its own (spec part 9 rule 1). */
const VERSIONED_PATH = /(\/api(?:\/v1\.1|\/v3)?)\/*$/i;

/**
 * The base URL is the origin, plus a path prefix only when the deployment has one: routes
 * carry `/api/v1.1/…` or `/api/v3/…` themselves, so a base URL ending in them doubles the path.
 */
function baseUrlPathProblem(url: URL): Problem {
  const match = VERSIONED_PATH.exec(url.pathname);
  if (!match) return undefined;
  const fixed = url.origin + url.pathname.slice(0, match.index);
  return `ends in '${match[1]}', which every route already carries: use the origin, plus a path prefix only when your deployment has one ('${fixed}')`;
}

/**
 * The base URL's path as every route's path is appended to it: without its trailing slashes,
 * dropped in one pass from the end (`/\/+$/` would rescan a run of slashes from each of them).
 */
export function basePathOf(url: URL): string {
  const path = url.pathname;
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f /* / */) end--;
  return path.slice(0, end);
}

/** A base URL as a message may show it: user-info masked, at most 80 characters, quoted. */
function shownUrl(value: string): string {
  const slashes = value.indexOf('//');
  const authority = slashes < 0 ? 0 : slashes + 2;
  let end = value.length;
  for (const stop of ['/', '?', '#']) {
    const at = value.indexOf(stop, authority);
    if (at >= 0 && at < end) end = at;
  }
  const at = value.lastIndexOf('@', end - 1);
  const masked = at >= authority ? `${value.slice(0, authority)}***${value.slice(at)}` : value;
  return JSON.stringify(masked.length > 80 ? `${masked.slice(0, 80)}…` : masked);
}

/**
 * The index of the first space, C0 control or DEL in `value`, or -1: a URL parser strips them at
 * either end and drops tabs and newlines inside, so `' https://api.example.com\n'` would be read
 * as a URL the caller did not write.
 */
function blankIndex(value: string): number {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code <= 0x20 || code === 0x7f) return index;
  }
  return -1;
}

/**
 * The base URL, the option's or `PARTNER_API_BASE_URL`'s (one grammar for both): an absolute URL
 * written without whitespace or control characters, whose path does not end in the API's own
 * prefix. The URL, or what is wrong with the value.
 */
export function parseBaseUrl(value: unknown): URL | string {
  if (typeof value !== 'string') return `must be a string (got ${describe(value)})`;
  const blank = blankIndex(value);
  if (blank !== -1) {
    const code = `U+${value.charCodeAt(blank).toString(16).toUpperCase().padStart(4, '0')}`;
    return `must be an absolute URL without whitespace or control characters (${code} at index ${blank})`;
  }
  // A value without a scheme is the usual slip (`api.example.com`, or `localhost:4010`, which
  // parses with `localhost:` as its scheme): the message shows it with `https://` in front.
  const schemeless = !value.includes('://');
  const withScheme = `"https://${shownUrl(value).slice(1, -1)}"`;
  // `new URL()`, not `URL.canParse()`: on Node 20, once optimized, `URL.canParse` answers false
  // for a URL holding Latin-1 letters (`https://münchen.example`).
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return schemeless
      ? `is not an absolute URL (got ${shownUrl(value)}): it needs a scheme, as in ${withScheme}`
      : `is not a valid absolute URL (got ${shownUrl(value)})`;
  }
  if (schemeless && url.protocol !== 'http:' && url.protocol !== 'https:') {
    // The "scheme" read is the host, or the user name of user-info, which is not shown.
    const readAs = value.includes('@') ? '' : `, read as the scheme '${url.protocol}'`;
    return `has no scheme (got ${shownUrl(value)}${readAs}): use ${withScheme}, or http:// for a local sandbox`;
  }
  return baseUrlPathProblem(url) ?? url;
}

function baseUrlProblem(value: unknown): Problem {
  const parsed = parseBaseUrl(value);
  return typeof parsed === 'string' ? parsed : undefined;
}

function loggerProblem(value: unknown): Problem {
  if (!isRecord(value)) return `must be an object with debug, info, warn and error methods (got ${describe(value)})`;
  const missing = ['debug', 'info', 'warn', 'error'].filter((level) => typeof value[level] !== 'function');
  return missing.length ? `must have the methods debug, info, warn and error (missing ${missing.join(', ')})` : undefined;
}

function dispatcherProblem(value: unknown): Problem {
  return isRecord(value) && typeof value['dispatch'] === 'function' ? undefined : 'must be an undici Dispatcher (an object with a dispatch method)';
}

function windowLimitIssues(value: unknown, path: string): ValidationIssue[] {
  if (!isRecord(value)) return [{ path, message: `must be { limit, windowMs } (got ${describe(value)})` }];
  const issues: ValidationIssue[] = [];
  const limit = integerProblem(value['limit'], 1, Number.MAX_SAFE_INTEGER);
  if (limit) issues.push({ path: `${path}.limit`, message: limit });
  const windowMs = millisecondsProblem(value['windowMs']);
  if (windowMs) issues.push({ path: `${path}.windowMs`, message: windowMs });
  return issues;
}

const LIMITER_METHODS = ['acquire', 'release', 'pause', 'close'] as const;

/** An object with an `acquire` method is meant as a RateLimiter: it must have all four. */
function limiterIssues(value: Record<string, unknown>): ValidationIssue[] {
  const missing = LIMITER_METHODS.filter((name) => typeof value[name] !== 'function');
  return missing.length === 0
    ? []
    : [{ path: 'rateLimit', message: `is a RateLimiter without ${missing.join(', ')} (methods required: ${LIMITER_METHODS.join(', ')})` }];
}

function rateLimitIssues(value: unknown): ValidationIssue[] {
  if (value === false) return [];
  if (!isRecord(value)) return [{ path: 'rateLimit', message: `must be false, a RateLimiter or { account?, endpoints? } (got ${describe(value)})` }];
  if ('acquire' in value) return limiterIssues(value);
  return limitsIssues(value, 'rateLimit');
}

/**
 * A key of `endpoints`: a route as calls name it (spec part 8's table), `METHOD /path`, the path a
 * template or a concrete one. Any other spelling (`post /api/v1.1/sms`, a second space, no
 * method) would match no call, and its limit would silently apply to nothing.
 */
const ROUTE_KEY = /^(?:GET|POST|PUT|PATCH|DELETE) \/\S*$/;

const WINDOW_LIMIT_NAMES = { limit: true, windowMs: true } as const satisfies OptionNames<WindowLimit>;

/**
 * Refuses an unknown member of the `{ limit, windowMs }` of `account` and of each route of
 * `endpoints` (a route is a key, not an option name), in `RateLimitOptions` or a limiter's
 * options that take the same shapes, as `owner`'s option under `path` (`rateLimit.`).
 */
export function refuseUnknownLimitMembers(value: Record<string, unknown>, owner: string, path: string): void {
  refuseUnknownOptions(value['account'], WINDOW_LIMIT_NAMES, owner, `${path}account.`);
  const endpoints = value['endpoints'];
  if (!isRecord(endpoints)) return;
  for (const route of Object.keys(endpoints)) refuseUnknownOptions(endpoints[route], WINDOW_LIMIT_NAMES, owner, `${path}endpoints.${route}.`);
}

/** `account` and `endpoints` of `RateLimitOptions` (or of a limiter's options that take the same shapes), under `path`. */
export function limitsIssues(value: Record<string, unknown>, path: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (value['account'] !== undefined) issues.push(...windowLimitIssues(value['account'], `${path}.account`));
  const endpoints = value['endpoints'];
  if (endpoints !== undefined) {
    if (!isRecord(endpoints)) issues.push({ path: `${path}.endpoints`, message: 'must be an object of routes to { limit, windowMs }' });
    else {
      for (const route of Object.keys(endpoints)) {
        if (!ROUTE_KEY.test(route)) {
          issues.push({
            path: `${path}.endpoints`,
            message: `has the key ${JSON.stringify(route)}, which names no route: write 'METHOD /path' (GET, POST, PUT, PATCH or DELETE, one space, a path starting with '/', such as 'POST /api/v1.1/sms')`,
          });
        } else issues.push(...windowLimitIssues(endpoints[route], `${path}.endpoints.${route}`));
      }
    }
  }
  return issues;
}

type Check = (value: unknown) => Problem;

/** An array of functions, each `(request, next, context) => Promise<Response>`. */
function middlewareProblem(value: unknown): Problem {
  if (!Array.isArray(value)) return `must be an array of middleware functions (got ${describe(value)})`;
  const index = value.findIndex((item) => typeof item !== 'function');
  return index < 0 ? undefined : `must be an array of middleware functions (item ${index} is ${describe(value[index])})`;
}

/** The grammar of each scalar client option; headers and rateLimit have their own walkers below. */
const clientOptionChecks = {
  baseUrl: baseUrlProblem,
  key: credentialProblem,
  secret: credentialProblem,
  timeoutMs: (value) => millisecondsProblem(value),
  maxRetries: maxRetriesProblem,
  fetch: functionProblem,
  dispatcher: dispatcherProblem,
  logger: loggerProblem,
  logLevel: (value) => oneOfProblem(value, LOG_LEVELS),
  allowInsecureHttp: booleanProblem,
  validateResponses: (value) => oneOfProblem(value, VALIDATION_MODES),
  maxResponseBytes: positiveIntegerProblem,
  // 0 means "never wait on the server"; longer than the timer range is waited by chained timers.
  maxServerWaitMs: (value) => integerProblem(value, 0, Number.MAX_SAFE_INTEGER),
  propagateTraceContext: booleanProblem,
  middleware: middlewareProblem,
} satisfies { [K in keyof ClientOptions]?: Check };

const CLIENT_OPTION_NAMES = { ...clientOptionChecks, rateLimit: true, defaultHeaders: true } satisfies OptionNames<ClientOptions, unknown>;
const RATE_LIMIT_NAMES = { account: true, endpoints: true } as const satisfies OptionNames<RateLimitOptions>;

/** Refuses an unknown client option, and an unknown member of `rateLimit` given as options (not a RateLimiter). */
function refuseUnknownClientOptions(options: Record<string, unknown>): void {
  refuseUnknownOptions(options, CLIENT_OPTION_NAMES, 'client');
  const rateLimit = options['rateLimit'];
  if (!isRecord(rateLimit) || 'acquire' in rateLimit) return;
  refuseUnknownOptions(rateLimit, RATE_LIMIT_NAMES, 'client', 'rateLimit.');
  refuseUnknownLimitMembers(rateLimit, 'client', 'rateLimit.');
}

/**
 * Checks every client option given (undefined means "the default"); throws ConfigurationError
 * naming the first unknown or bad option. Runs at construction: nothing is sent, nothing scheduled.
 */
export function checkClientOptions(options: unknown): void {
  if (options === undefined) return;
  if (!isRecord(options)) throw new ConfigurationError(`client options must be an object (got ${describe(options)})`, 'CONFIGURATION_ERROR', '');
  refuseUnknownClientOptions(options);
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(clientOptionChecks)) {
    const value = options[name];
    if (value === undefined) continue;
    const problem = clientOptionChecks[name as keyof typeof clientOptionChecks](value);
    if (problem) issues.push({ path: name, message: problem });
  }
  if (options['defaultHeaders'] !== undefined) issues.push(...headerIssues(options['defaultHeaders'], 'defaultHeaders'));
  if (options['rateLimit'] !== undefined) issues.push(...rateLimitIssues(options['rateLimit']));
  const first = issues[0];
  if (first) {
    const option = first.path.split('.')[0] ?? first.path;
    throw new ConfigurationError(`invalid client option ${first.path}: ${first.message}`, 'CONFIGURATION_ERROR', option);
  }
}

/** The names every method's last argument takes; `client.request()`'s input adds its own. */
export const REQUEST_OPTION_NAMES = {
  idempotencyKey: true,
  signal: true,
  timeoutMs: true,
  maxRetries: true,
  headers: true,
  middleware: true,
} as const satisfies OptionNames<RequestOptions>;

/**
 * Refuses a member of `options` not in `names` with a RequestValidationError for `context`
 * (`unknown <kind> <name>: did you mean …?`): a misspelt option would otherwise be ignored.
 */
export function refuseUnknownInput(options: object, names: object, kind: string, context: string): void {
  const name = unknownOption(options, names);
  if (name !== undefined) throw new RequestValidationError([{ path: '', message: unknownOptionMessage(kind, name, names) }], context);
}

/**
 * Checks one call's options; throws RequestValidationError naming each bad option. Costs a few
 * typeof checks per option present; the caller skips it when no options object was passed.
 */
export function checkRequestOptions(options: object, context: string): void {
  refuseUnknownInput(options, REQUEST_OPTION_NAMES, 'request option', context);
  const record = options as Record<string, unknown>;
  let issues: ValidationIssue[] | undefined;
  const add = (path: string, message: Problem): void => {
    if (message) (issues ??= []).push({ path, message });
  };
  const { timeoutMs, maxRetries, idempotencyKey, signal, headers, middleware } = record;
  if (timeoutMs !== undefined) add('timeoutMs', millisecondsProblem(timeoutMs));
  if (middleware !== undefined) add('middleware', middlewareProblem(middleware));
  if (maxRetries !== undefined) add('maxRetries', maxRetriesProblem(maxRetries));
  if (idempotencyKey !== undefined) add('idempotencyKey', idempotencyKeyProblem(idempotencyKey));
  if (signal !== undefined) add('signal', signalProblem(signal));
  if (headers !== undefined) for (const issue of headerIssues(headers, 'headers')) add(issue.path, issue.message);
  if (issues) throw new RequestValidationError(issues, context);
}

const WAIT_OPTION_NAMES = {
  timeoutMs: true,
  pollIntervalMs: true,
  maxPollIntervalMs: true,
  signal: true,
  onProgress: true,
} as const satisfies OptionNames<WaitOptions>;

/** Checks `wait()` options before the first poll; throws RequestValidationError naming each bad option. */
export function checkWaitOptions(options: unknown, context: string): void {
  if (options === undefined) return;
  if (!isRecord(options))
    throw new RequestValidationError([{ path: '', message: `wait options must be an object (got ${describe(options)})` }], context);
  refuseUnknownInput(options, WAIT_OPTION_NAMES, 'wait option', context);
  const issues: ValidationIssue[] = [];
  const add = (path: string, message: Problem): void => {
    if (message) issues.push({ path, message });
  };
  const { timeoutMs, pollIntervalMs, maxPollIntervalMs, signal, onProgress } = options;
  if (timeoutMs !== undefined) add('timeoutMs', millisecondsProblem(timeoutMs));
  if (pollIntervalMs !== undefined) add('pollIntervalMs', millisecondsProblem(pollIntervalMs, MIN_POLL_INTERVAL_MS));
  if (maxPollIntervalMs !== undefined) add('maxPollIntervalMs', millisecondsProblem(maxPollIntervalMs, MIN_POLL_INTERVAL_MS));
  if (signal !== undefined) add('signal', signalProblem(signal));
  if (onProgress !== undefined) add('onProgress', functionProblem(onProgress));
  if (issues.length) throw new RequestValidationError(issues, context);
}

const CLOSE_OPTION_NAMES = { timeoutMs: true } as const satisfies OptionNames<CloseOptions>;

/** Checks `close()` options; throws RequestValidationError naming each bad option. */
export function checkCloseOptions(options: unknown): void {
  if (options === undefined) return;
  if (!isRecord(options))
    throw new RequestValidationError([{ path: '', message: `close options must be an object (got ${describe(options)})` }], 'close');
  refuseUnknownInput(options, CLOSE_OPTION_NAMES, 'close option', 'close');
  const { timeoutMs } = options;
  const problem = timeoutMs === undefined ? undefined : millisecondsProblem(timeoutMs);
  if (problem) throw new RequestValidationError([{ path: 'timeoutMs', message: problem }], 'close');
}
