/** Matching raw request paths against the spec's route templates (`/api/v1.1/sims/{iccid}`). */
import { hasPlaceholder, templateMatcher, type TemplateMatcher } from '../shared/route-template.js';

const cache = new Map<string, TemplateMatcher>();

/** Accepts `{name}` and `:name` placeholders; one placeholder matches one encoded segment. */
const SANDBOX_TEMPLATES = { colonParams: true, trailingSlash: true } as const;

function matcherOf(template: string): TemplateMatcher {
  let re = cache.get(template);
  if (!re) {
    re = templateMatcher(template, SANDBOX_TEMPLATES);
    cache.set(template, re);
  }
  return re;
}

export function matchesPath(pattern: string, rawPath: string): boolean {
  if (hasPlaceholder(pattern, SANDBOX_TEMPLATES)) return matcherOf(pattern).test(rawPath);
  return pattern === rawPath || safeDecode(pattern) === safeDecode(rawPath);
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The path part of a request-target or absolute URL, percent-encoding untouched. */
export function pathOfTarget(target: string): string {
  let path = target;
  // Only an absolute-form target has a scheme; in an origin-form one (`/…`) `://` is path text.
  const scheme = path.startsWith('/') ? -1 : path.indexOf('://');
  if (scheme !== -1) {
    const rest = path.slice(scheme + 3);
    const end = rest.search(/[/?#]/);
    path = end === -1 || rest[end] !== '/' ? `/${end === -1 ? '' : rest.slice(end)}` : rest.slice(end);
  }
  const cut = path.search(/[?#]/);
  return cut === -1 ? path : path.slice(0, cut);
}
