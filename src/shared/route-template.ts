/**
 * Route templates as the spec writes them (`/api/v1.1/sims/{iccid}`), turned into one matcher
 * for the client's limiter and the sandbox alike: both must agree on which request a template
 * (and so a rate limit of spec part 8) covers. Imports nothing.
 *
 * A template may come from outside (the path of a forced rule sent to the sandbox), so reading
 * one and matching a path against it are both linear, without regular expressions: a pattern
 * such as `[^/]+[^/]+` (two placeholders side by side) backtracks polynomially on a long segment.
 */

export interface TemplateMatcherOptions {
  /** Also read `:name` as a placeholder (the sandbox's route syntax). Default false. */
  readonly colonParams?: boolean;
  /** Also match the path with one trailing `/`. Default false. */
  readonly trailingSlash?: boolean;
}

/** Whole-string matching of a path against one template. */
export interface TemplateMatcher {
  test(path: string): boolean;
}

/** A placeholder among the literal text of a template. */
const PLACEHOLDER = null;
type Part = string | typeof PLACEHOLDER;

function isNameStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39);
}

/**
 * The template as literal text and placeholders, left to right: `{name}` (any characters but
 * `}`, at least one) and, with `colonParams`, `:name` (a letter or `_`, then letters, digits, `_`).
 */
function parts(template: string, colonParams: boolean): Part[] {
  const out: Part[] = [];
  let literalStart = 0;
  // The first `}` at or after the position looked at, found once for every `{` before it.
  let nextClose = -1;
  let i = 0;
  while (i < template.length) {
    const code = template.charCodeAt(i);
    let end = -1;
    if (code === 0x7b /* { */) {
      if (nextClose !== template.length && nextClose <= i) {
        nextClose = template.indexOf('}', i + 1);
        if (nextClose === -1) nextClose = template.length;
      }
      if (nextClose < template.length && nextClose > i + 1) end = nextClose + 1;
    } else if (code === 0x3a /* : */ && colonParams && isNameStart(template.charCodeAt(i + 1))) {
      end = i + 2;
      while (end < template.length && isNameChar(template.charCodeAt(end))) end++;
    }
    if (end === -1) {
      i++;
      continue;
    }
    out.push(template.slice(literalStart, i), PLACEHOLDER);
    literalStart = i = end;
  }
  out.push(template.slice(literalStart));
  return out;
}

/** True when `template` has at least one placeholder (with `colonParams`, a `:name` only right after a `/`). */
export function hasPlaceholder(template: string, options: TemplateMatcherOptions = {}): boolean {
  return parts(template, false).length > 1 || (options.colonParams === true && /\/:[A-Z_]/i.test(template));
}

/**
 * One segment's pattern: literal text with placeholders between, e.g. `['', null, '.json']`. A
 * placeholder takes at least one character. Each literal is found at its first place after the
 * one before (the first place leaves the most room for the rest), so the segment is read once.
 */
function segmentMatches(pattern: readonly Part[], text: string): boolean {
  if (pattern.length === 1) return text === pattern[0];
  const first = pattern[0] as string;
  const last = pattern[pattern.length - 1] as string;
  if (!text.startsWith(first)) return false;
  let at = first.length;
  for (let p = 2; p < pattern.length - 1; p += 2) {
    const literal = pattern[p] as string;
    const found = text.indexOf(literal, at + 1);
    if (found === -1) return false;
    at = found + literal.length;
  }
  return text.length - last.length > at && text.endsWith(last);
}

/**
 * A whole-string matcher for `template`: each placeholder matches exactly one non-empty run of a
 * path segment as sent (still percent-encoded, never a `/`), every other character matches itself.
 */
export function templateMatcher(template: string, options: TemplateMatcherOptions = {}): TemplateMatcher {
  // Placeholders never take a `/`, so the path's segments line up with the template's.
  const segments: Part[][] = [[]];
  for (const part of parts(template, options.colonParams === true)) {
    if (part === PLACEHOLDER) {
      (segments[segments.length - 1] as Part[]).push(PLACEHOLDER);
      continue;
    }
    const pieces = part.split('/');
    (segments[segments.length - 1] as Part[]).push(pieces[0] as string);
    for (let i = 1; i < pieces.length; i++) segments.push([pieces[i] as string]);
  }
  const matches = (path: string): boolean => {
    const texts = path.split('/');
    return texts.length === segments.length && segments.every((pattern, i) => segmentMatches(pattern, texts[i] as string));
  };
  const trailingSlash = options.trailingSlash === true;
  return { test: (path) => matches(path) || (trailingSlash && path.endsWith('/') && matches(path.slice(0, -1))) };
}
