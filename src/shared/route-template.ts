/**
 * Route templates as the spec writes them (`/api/v1.1/sims/{iccid}`), turned into one matcher
 * for the client's limiter and the sandbox alike: both must agree on which request a template
 * (and so a rate limit of spec part 8) covers. Imports nothing.
 */

export interface TemplateMatcherOptions {
  /** Also read `:name` as a placeholder (the sandbox's route syntax). Default false. */
  readonly colonParams?: boolean;
  /** Also match the path with one trailing `/`. Default false. */
  readonly trailingSlash?: boolean;
}

const BRACES = /(\{[^}]+\})/;
const BRACES_OR_COLON = /(\{[^}]+\}|:[A-Za-z_][A-Za-z0-9_]*)/;

/** True when `template` has at least one placeholder. */
export function hasPlaceholder(template: string, options: TemplateMatcherOptions = {}): boolean {
  return (options.colonParams ? /\{[^}]+\}|\/:[A-Za-z_]/ : /\{[^}]+\}/).test(template);
}

/**
 * A whole-string matcher for `template`: each placeholder matches exactly one non-empty path
 * segment as sent (still percent-encoded, never a `/`), every other character matches itself.
 */
export function templateMatcher(template: string, options: TemplateMatcherOptions = {}): RegExp {
  const source = template
    .split(options.colonParams ? BRACES_OR_COLON : BRACES)
    .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}${options.trailingSlash ? '/?' : ''}$`);
}
