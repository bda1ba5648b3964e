/**
 * The client reads what a server sends, and what a caller passes as a path, in time linear in its
 * length: Retry-After and X-RateLimit-* in hostile shapes over loopback HTTP (as much as undici
 * takes, 16 KiB of headers) and at 1 MiB through a `fetch` of the caller's, which takes any
 * length; a `client.request()` path of 1 MiB is encoded and sent, or refused, within the bound.
 */
import { describe, expect, it } from 'vitest';
import { PartnerClient, RateLimitError, RequestValidationError } from '../../src/index.js';
import { fill, KIB, LENGTHS, withinBound } from '../helpers/linear-time.js';
import { fail } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

/** Values of `length` characters for a header whose grammar is digits or an HTTP-date. */
const HEADER_SHAPES: Readonly<Record<string, (length: number) => string>> = {
  'a run of digits': (n) => fill('1', n),
  'blanks between digits': (n) => `1${fill(' ', n - 2)}1`,
  'tabs between digits': (n) => `1${fill('\t', n - 2)}1`,
  'an HTTP-date with a long tail': (n) => `Sun, 06 Nov 1994 08:49:37 GMT${fill(' ', n - 30)}x`,
  'an HTTP-date with a long day': (n) => `Sun, ${fill('0', n - 5)}`,
  'a joined list': (n) => fill('86400, ', n),
  'a run of letters': (n) => fill('a', n),
};

const THROTTLE_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const throttled = (value: string): Record<string, string> => Object.fromEntries(THROTTLE_HEADERS.map((name) => [name, value]));

const t = useTestServer({ maxRetries: 0, rateLimit: false });

/** A client whose `fetch` answers every call with `answer()`, and records the URL of each. */
function clientAnswering(answer: () => Response, urls: string[] = []): PartnerClient {
  return new PartnerClient({
    baseUrl: 'https://partner.test',
    key: KEY,
    secret: SECRET,
    maxRetries: 0,
    rateLimit: false,
    fetch: async (input) => {
      urls.push(String(input));
      return answer();
    },
  });
}

describe('response headers', () => {
  for (const [name, build] of Object.entries(HEADER_SHAPES)) {
    it(`of ${name} are read in linear time, over HTTP and at 1 MiB`, async () => {
      // Four headers of 3 KiB: what Node's HTTP parser takes in one answer.
      t.server.on('GET /api/v1.1/thing', fail(429, 'RATE_LIMITED', { headers: throttled(build(3 * KIB)) }));
      const overHttp = await withinBound(`${name} over HTTP`, () =>
        t.client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((error: unknown) => error),
      );
      expect(overHttp).toBeInstanceOf(RateLimitError);

      for (const length of LENGTHS) {
        const headers = throttled(build(length));
        const envelope = JSON.stringify({ success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } });
        const client = clientAnswering(() => new Response(envelope, { status: 429, headers }));
        try {
          const error = await withinBound(`${name}, ${length} characters`, () =>
            client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false }).catch((caught: unknown) => caught),
          );
          expect(error).toBeInstanceOf(RateLimitError);
        } finally {
          await client.close();
        }
      }
    });
  }
});

/** Paths of about `length` characters for `client.request()`, and whether the client sends each (encoded where it must be) or refuses it. */
const PATH_SHAPES: Readonly<Record<string, { build: (length: number) => string; sent: boolean }>> = {
  'a run of letters': { build: (n) => `/${fill('a', n - 1)}`, sent: true },
  'percent-escapes': { build: (n) => `/${'%41'.repeat(Math.floor(n / 3))}`, sent: true },
  'a run of blanks': { build: (n) => `/${fill(' ', n - 1)}`, sent: true },
  'non-ASCII letters': { build: (n) => `/${fill('é', n - 1)}`, sent: true },
  'a run of %': { build: (n) => `/${fill('%', n - 1)}`, sent: false },
  'dot segments': { build: (n) => fill('/.', n), sent: false },
  // Data to the sandbox, navigation to WHATWG URL parsing: the fetch wire refuses it.
  'encoded dot segments': { build: (n) => `/${'%2e/'.repeat(Math.floor(n / 4))}`, sent: false },
  'letters, then a fragment': { build: (n) => `/${fill('a', n - 2)}#`, sent: false },
};

describe('a client.request() path', () => {
  for (const [name, shape] of Object.entries(PATH_SHAPES)) {
    it(`of ${name} is ${shape.sent ? 'encoded and sent' : 'refused'} in linear time at 1 MiB`, async () => {
      const urls: string[] = [];
      const client = clientAnswering(() => Response.json({ success: true, data: 1 }), urls);
      try {
        for (const length of LENGTHS) {
          const path = shape.build(length);
          const outcome = await withinBound(`${name}, ${length} characters`, () =>
            client.request({ method: 'GET', path, auth: false }).catch((error: unknown) => error),
          );
          if (shape.sent) expect(outcome).toBe(1);
          else expect(outcome).toBeInstanceOf(RequestValidationError);
        }
        expect(urls).toHaveLength(shape.sent ? LENGTHS.length : 0);
      } finally {
        await client.close();
      }
    });
  }
});
