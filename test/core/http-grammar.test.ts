import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartnerClient, RateLimitError } from '../../src/index.js';
import { fail, ok, tokenAnswer } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const THING = 'GET /api/v1.1/thing';
const t = useTestServer({ maxRetries: 0, rateLimit: false });
const getThing = () => t.client.request({ method: 'GET', path: '/api/v1.1/thing' });

/** The RateLimitError of a 429 carrying these Retry-After header(s). */
async function retryAfterOf(value: string | string[]): Promise<number | undefined> {
  t.server.on(THING, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': value as string } }));
  const error = await getThing().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(RateLimitError);
  return (error as RateLimitError).retryAfterSeconds;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
const time = (d: Date) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
const imfFixdate = (d: Date) => d.toUTCString();
const rfc850 = (d: Date) =>
  `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${pad(d.getUTCFullYear() % 100)} ${time(d)} GMT`;
const asctime = (d: Date) =>
  `${(DAYS[d.getUTCDay()] as string).slice(0, 3)} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time(d)} ${d.getUTCFullYear()}`;

describe('Retry-After: delay-seconds or an HTTP-date (RFC 9110 10.2.3), nothing else', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['120', 120],
    ['007', 7],
    ['86400', 86_400],
    // RFC 9110 5.5: optional whitespace around a field value is not part of it.
    [' 120', 120],
    ['120\t', 120],
  ])('reads %j as %i seconds', async (value, seconds) => {
    expect(await retryAfterOf(value)).toBe(seconds);
  });

  it.each([
    ['hexadecimal', '0x10'],
    ['an exponent', '1e3'],
    ['a plus sign', '+120'],
    ['a minus sign', '-5'],
    ['a fraction', '120.0'],
    ['a digit separator', '1_000'],
    ['superscript digits', '\u00b2\u00b3'],
    ['a word', 'soon'],
    ['an ISO 8601 date', '2099-01-01T00:00:00Z'],
    ['a date in another zone', 'Sun, 06 Nov 2094 08:49:37 PST'],
    ['an impossible date', 'Sat, 31 Feb 2099 08:49:37 GMT'],
    ['an impossible time', 'Thu, 01 Jan 2099 24:00:00 GMT'],
    ['a lower-case date', 'thu, 01 jan 2099 00:00:00 gmt'],
    ['a value with an inner space', '1 20'],
  ])('treats %s (%j) as absent', async (_name, value) => {
    expect(await retryAfterOf(value)).toBeUndefined();
  });

  it.each([
    ['two delays', ['86400', '1']],
    ['two dates', ['Sun, 06 Nov 2094 08:49:37 GMT', 'Sun, 06 Nov 2094 08:49:37 GMT']],
  ])('treats two Retry-After headers (%s), joined into one value, as absent', async (_name, values) => {
    expect(await retryAfterOf(values)).toBeUndefined();
  });

  it.each([
    ['IMF-fixdate', imfFixdate],
    ['obsolete rfc850', rfc850],
    ['obsolete asctime', asctime],
  ])('reads an %s date as the seconds until it', async (_name, format) => {
    const seconds = await retryAfterOf(format(new Date(Date.now() + 30_000)));
    expect(seconds).toBeGreaterThanOrEqual(28);
    expect(seconds).toBeLessThanOrEqual(31);
  });

  it('reads a date in the past as 0', async () => {
    expect(await retryAfterOf('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(0);
    expect(await retryAfterOf('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(0);
    expect(await retryAfterOf('Sun Nov  6 08:49:37 1994')).toBe(0);
  });

  it('falls back to ordinary backoff for a malformed value instead of waiting what it seems to say', async () => {
    const client = await t.connect({ maxRetries: 1 });
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1e3' } }), ok('done')]);
    // 1e3 read as a number would hold the call for 1000 s; the test's timeout would fail it.
    await expect(client.request({ method: 'GET', path: '/api/v1.1/thing' })).resolves.toBe('done');
  });
});

describe('X-RateLimit-Limit, -Remaining, -Reset: 1*DIGIT each, or the trio is absent', () => {
  const withTrio = async (limit: string, remaining: string, reset: string) => {
    t.server.on(THING, ok(1, { headers: { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset } }));
    return (await getThing().asResult()).response.rateLimit;
  };

  it.each([
    ['120', '119', '60', { limit: 120, remaining: 119, resetSeconds: 60 }],
    ['5', '0', '0', { limit: 5, remaining: 0, resetSeconds: 0 }],
    [' 10 ', '09', '1', { limit: 10, remaining: 9, resetSeconds: 1 }],
  ])('reads %j / %j / %j', async (limit, remaining, reset, expected) => {
    expect(await withTrio(limit, remaining, reset)).toEqual(expected);
  });

  it.each([
    ['1e2', '5', '60'],
    ['120', '-1', '60'],
    ['120', '5', '0x3c'],
    ['120', '5.0', '60'],
    ['120', '5', '+60'],
    ['120', '5', 'soon'],
    ['120, 60', '5', '60'],
  ])('treats %j / %j / %j as no rate-limit information', async (limit, remaining, reset) => {
    expect(await withTrio(limit, remaining, reset)).toBeUndefined();
  });

  it('treats a missing member as no rate-limit information', async () => {
    t.server.on(THING, ok(1, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '3' } }));
    expect((await getThing().asResult()).response.rateLimit).toBeUndefined();
  });
});

describe('Retry-After, property-based (through the fetch option, answered in-process)', () => {
  /** A client whose fetch answers the token exchange and then a 429 carrying `header.value`. */
  function throttlingClient(header: { value: string }): PartnerClient {
    const fetchImpl: typeof fetch = async (input) => {
      if (String(input).endsWith('/auth/token')) return Response.json(tokenAnswer().json);
      return Response.json(
        { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } },
        { status: 429, headers: { 'retry-after': header.value } },
      );
    };
    return new PartnerClient({
      baseUrl: 'https://partner.example.test',
      key: KEY,
      secret: SECRET,
      fetch: fetchImpl,
      maxRetries: 0,
      rateLimit: false,
    });
  }

  async function readBy(client: PartnerClient): Promise<number | undefined> {
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    return (error as RateLimitError).retryAfterSeconds;
  }

  const ows = fc.constantFrom('', ' ', '\t', '  ');
  /** Printable Latin-1 and tab: what a header value can carry. */
  const headerText = fc.string({
    unit: fc
      .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }), fc.constant(9))
      .map((code) => String.fromCharCode(code)),
    maxLength: 24,
  });

  it('reads any run of digits, with optional whitespace around it, as that many seconds', async () => {
    const header = { value: '' };
    const client = throttlingClient(header);
    try {
      await fc.assert(
        fc.asyncProperty(ows, fc.stringMatching(/^[0-9]{1,15}$/), ows, async (before, digits, after) => {
          header.value = `${before}${digits}${after}`;
          expect(await readBy(client)).toBe(Number(digits));
        }),
        { numRuns: 150 },
      );
    } finally {
      await client.close();
    }
  });

  it('gives a non-negative safe integer or nothing for any value, and nothing unless it is digits or a GMT date', async () => {
    const header = { value: '' };
    const client = throttlingClient(header);
    try {
      await fc.assert(
        fc.asyncProperty(headerText, async (value) => {
          header.value = value;
          const seconds = await readBy(client);
          if (seconds === undefined) return;
          expect(Number.isSafeInteger(seconds) && seconds >= 0).toBe(true);
          expect(/^[ \t]*[0-9]+[ \t]*$/.test(value) || /(GMT|[0-9]{4})[ \t]*$/.test(value)).toBe(true);
        }),
        { numRuns: 300 },
      );
    } finally {
      await client.close();
    }
  });

  it('treats a number written any other way than plain digits as absent', async () => {
    const header = { value: '' };
    const client = throttlingClient(header);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc
              .double({ noNaN: true })
              .map((n) => String(n))
              .filter((text) => !/^[0-9]+$/.test(text)),
            fc.integer({ min: 0, max: 10_000 }).map((n) => `+${n}`),
            fc.integer({ min: 1, max: 10_000 }).map((n) => `-${n}`),
            fc.integer({ min: 0, max: 10_000 }).map((n) => `0x${n.toString(16)}`),
            fc.integer({ min: 0, max: 10_000 }).map((n) => `${n}.0`),
            fc.integer({ min: 1, max: 9 }).map((n) => `${n}e${n}`),
            fc.tuple(fc.nat(100_000), fc.nat(100_000)).map(([a, b]) => `${a}, ${b}`),
          ),
          async (value) => {
            header.value = value;
            expect(await readBy(client)).toBeUndefined();
          },
        ),
        { numRuns: 200 },
      );
    } finally {
      await client.close();
    }
  });
});
