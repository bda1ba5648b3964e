/**
 * The one grammar of each number an HTTP header carries: what the client acts on from the server,
 * a webhook receiver from a delivery, and the sandbox's request log from its own answers (forced
 * headers included), so the log shows what a client reads. Imports nothing. A value outside its
 * grammar is treated as absent (the documented fallback of each caller), never guessed at:
 * `Number()` and `Date.parse()` accept hex, exponents, signs, fractions and local-time dates
 * that no header grammar allows.
 */

/**
 * RFC 9110 5.5: a field value carries no leading or trailing whitespace, and a recipient
 * excludes optional whitespace (SP, HTAB) around it. Only those two: a newline, a NUL or a
 * non-breaking space is not whitespace to HTTP, so a value carrying one is malformed.
 */
function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

const DIGITS = /^\d+$/;

/**
 * `1*DIGIT` as a number; undefined for anything else. Values beyond 2^53 − 1 saturate to
 * `Number.MAX_SAFE_INTEGER` (RFC 9110 10.2.3 lets a recipient treat a delay it cannot
 * represent as its largest one), so the result is always a finite safe integer.
 */
export function parseDigits(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = trimOws(value);
  if (!DIGITS.test(text)) return undefined;
  const parsed = Number(text);
  return parsed > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : parsed;
}

const MONTHS: Readonly<Record<string, number>> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete, RFC 9110 5.6.7: a recipient must accept it) */
const RFC850_DATE = new RegExp(`^${DAY_LONG}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (obsolete, likewise) */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} (\\d{2}| \\d) ${TIME} (\\d{4})$`);

function utc(year: number, month: number, day: number, hour: string, minute: string, second: string): number | undefined {
  const h = Number(hour);
  const m = Number(minute);
  const s = Number(second);
  // 60 is a leap second (RFC 9110 5.6.7 allows it).
  if (h > 23 || m > 59 || s > 60 || day < 1) return undefined;
  // setUTCFullYear, not Date.UTC: the latter maps years 0..99 to 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  // 31 Feb rolls over into March: such a date is not a date.
  if (date.getUTCDate() !== day) return undefined;
  return date.getTime() + ((h * 60 + m) * 60 + s) * 1000;
}

/**
 * An HTTP-date (RFC 9110 5.6.7) as epoch milliseconds, in any of its three forms; undefined for
 * anything else. A two-digit rfc850 year more than 50 years ahead of `nowMs` is taken as the
 * most recent past year with the same last two digits, as the RFC asks.
 */
function parseHttpDate(value: string, nowMs: number): number | undefined {
  let match = IMF_FIXDATE.exec(value);
  if (match) {
    return utc(Number(match[3]), MONTHS[match[2] as string] as number, Number(match[1]), match[4] as string, match[5] as string, match[6] as string);
  }
  match = RFC850_DATE.exec(value);
  if (match) {
    const thisYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(match[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, MONTHS[match[2] as string] as number, Number(match[1]), match[4] as string, match[5] as string, match[6] as string);
  }
  match = ASCTIME_DATE.exec(value);
  if (match) {
    return utc(
      Number(match[6]),
      MONTHS[match[1] as string] as number,
      Number(trimOws(match[2] as string)),
      match[3] as string,
      match[4] as string,
      match[5] as string,
    );
  }
  return undefined;
}

/**
 * Retry-After (RFC 9110 10.2.3) in whole seconds from now: `delay-seconds` or an HTTP-date (a
 * date in the past is 0). Anything else is absent, and the caller falls back to its ordinary
 * backoff: hex, exponents, signs, fractions, and two Retry-After headers joined into one value
 * (`86400, 1`), because the field is not a list and nothing says which of the two was meant.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const seconds = parseDigits(value);
  if (seconds !== undefined) return seconds;
  const date = parseHttpDate(trimOws(value), nowMs);
  if (date === undefined) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/**
 * A count the server puts in JSON (page meta, spec part 2): a non-negative safe integer, else
 * undefined. `1e9` written as a number is an integer and passes; 1.5, -1, NaN-like strings,
 * numbers past 2^53 − 1 and non-numbers do not.
 */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
