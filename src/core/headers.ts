import type { Query, RateLimitInfo, ResponseInfo } from './request.js';
import { parseDigits, parseRetryAfter } from '../shared/http-grammar.js';
import { VERSION } from './version.js';

const runtime = typeof process !== 'undefined' && typeof process.version === 'string' ? `node/${process.version}` : 'js';

export const USER_AGENT = `mobile-partner-sdk/${VERSION} ${runtime}`;

/** Lower-cases header names once, so later merges cannot produce `Authorization` and `authorization` side by side. */
export function lowerCaseHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name] as string;
  return out;
}

const plain = /^[\w.*-]*$/;

/** application/x-www-form-urlencoded, as URLSearchParams writes it; plain names and values pass as they are. */
function formEncode(text: string): string {
  return plain.test(text) ? text : new URLSearchParams([['', text]]).toString().slice(1);
}

/** `?a=1&b=2` with URLSearchParams encoding; undefined and null values are left out. '' when nothing remains. */
export function serializeQuery(query: Query | undefined): string {
  if (!query) return '';
  let out = '';
  for (const name of Object.keys(query)) {
    const value = query[name];
    if (value === undefined || value === null) continue;
    out += `${out ? '&' : '?'}${formEncode(name)}=${formEncode(String(value))}`;
  }
  return out;
}

/**
 * X-RateLimit-* of a non-throttled answer (spec part 8 rule 2): each `1*DIGIT`; undefined
 * unless all three are present and well-formed, so a malformed trio teaches the limiter nothing.
 */
function parseRateLimit(headers: Record<string, string>): RateLimitInfo | undefined {
  const raw = headers['x-ratelimit-limit'];
  if (raw === undefined) return undefined;
  const limit = parseDigits(raw);
  const remaining = parseDigits(headers['x-ratelimit-remaining']);
  const resetSeconds = parseDigits(headers['x-ratelimit-reset']);
  if (limit === undefined || remaining === undefined || resetSeconds === undefined) return undefined;
  return { limit, remaining, resetSeconds };
}

/** Retry-After in seconds (RFC 9110 10.2.3, one grammar: see http-grammar.ts); undefined when absent or malformed. */
export function parseRetryAfterSeconds(headers: Record<string, string>): number | undefined {
  return parseRetryAfter(headers['retry-after'], Date.now());
}

export function responseInfo(status: number, headers: Record<string, string>): ResponseInfo {
  return {
    status,
    headers,
    rateLimit: parseRateLimit(headers),
    idempotencyReplayed: headers['idempotency-replayed']?.toLowerCase() === 'true',
  };
}
