/**
 * The configuration guide's tables of client options, held to the client: "Option | Default |
 * Meaning" (every option, and the default a client made without it shows or acts on) and "Option |
 * Accepted" (every option's grammar, its edges accepted and the values past them refused with a
 * ConfigurationError naming the option). The "Default numbers" table is defaults-docs.test.ts's.
 */
import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationError, type ClientOptions, PartnerClient, type RateLimiter } from '../../src/index.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { fail, ok } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 0 });

/** The client's option names, as its refusal of an unknown one lists them. */
function clientOptionNames(): string[] {
  try {
    new PartnerClient({ zzzzzzzzzzzz: 1 } as ClientOptions);
  } catch (error) {
    const allowed = /\(allowed: (.*)\)$/.exec((error as Error).message)?.[1];
    if (allowed) return allowed.split(', ');
  }
  throw new Error('the client no longer lists its options when refusing an unknown one');
}

/** What util.inspect shows of a client: its resolved safe options. */
function shown(client: PartnerClient): Record<string, unknown> {
  return JSON.parse(inspect(client).replace(/^PartnerClient /, '')) as Record<string, unknown>;
}

/** A documented literal (`30000`, `'strict'`, `false`) as a value. */
function literal(text: string): unknown {
  return JSON.parse(text.replace(/^'(.*)'$/, '"$1"'));
}

const SIMS = 'GET /api/v1.1/sims';
const page = ok([], { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } });

describe("the configuration guide's table of options and their defaults", () => {
  const { rows } = findTable(['Option', 'Default', 'Meaning']);
  /** [option, its default as written], one pair per option of a row (`logger`, `logLevel` | none, `'warn'`). */
  const pairs = rows.flatMap(([options = '', defaults = '']) => {
    const names = codeSpans(options);
    const values = names.length === 1 ? [defaults] : defaults.split(/,\s*/);
    return names.map((name, index) => [name, (values[index] ?? '').trim()] as const);
  });

  it('has a row for every option the client takes, and no other', () => {
    expect(pairs.map(([name]) => name).sort()).toEqual(clientOptionNames().sort());
  });

  /** How a default that is not shown by util.inspect is observed. */
  const observed: Record<string, (documented: string) => Promise<void>> = {
    async baseUrl(documented) {
      vi.stubEnv(codeSpans(documented)[0] ?? '', t.server.url);
      t.server.on(SIMS, page);
      const client = t.track(new PartnerClient({ key: KEY, secret: SECRET, maxRetries: 0 }));
      await client.sims.list();
      expect(t.server.requestsTo(SIMS)).toHaveLength(1);
    },
    async key(documented) {
      vi.stubEnv(codeSpans(documented)[0] ?? '', 'key-from-the-environment');
      t.server.on(SIMS, page);
      await t.track(new PartnerClient({ baseUrl: t.server.url, secret: SECRET, maxRetries: 0 })).sims.list();
      expect(t.server.requests[0]?.body).toContain('key-from-the-environment');
    },
    async secret(documented) {
      vi.stubEnv(codeSpans(documented)[0] ?? '', 'secret-from-the-environment');
      t.server.on(SIMS, page);
      await t.track(new PartnerClient({ baseUrl: t.server.url, key: KEY, maxRetries: 0 })).sims.list();
      expect(t.server.requests[0]?.body).toContain('secret-from-the-environment');
    },
    async logLevel(documented) {
      const level = literal(codeSpans(documented)[0] ?? '') as string;
      const logged: string[] = [];
      const logger = Object.fromEntries(['debug', 'info', 'warn', 'error'].map((name) => [name, () => logged.push(name)]));
      t.server.on(SIMS, [fail(503, 'INTERNAL_ERROR', { headers: { 'retry-after': '0' } }), page]);
      await t.track(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, maxRetries: 1, logger: logger as never })).sims.list();
      const levels = ['debug', 'info', 'warn', 'error'];
      expect(logged.length).toBeGreaterThan(0);
      for (const name of logged) expect(levels.indexOf(name)).toBeGreaterThanOrEqual(levels.indexOf(level));
    },
    async allowInsecureHttp(documented) {
      expect(literal(codeSpans(documented)[0] ?? '')).toBe(false);
      const client = t.track(new PartnerClient({ baseUrl: 'http://partner.example', key: KEY, secret: SECRET }));
      await expect(client.sims.list()).rejects.toMatchObject({ name: 'ConfigurationError', code: 'INSECURE_TRANSPORT' });
    },
    async rateLimit(documented) {
      expect(documented).toBe("the spec's limits");
      expect(shown(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET })).rateLimit).toBe('on');
    },
    async fetch(documented) {
      expect(documented).toBe('—');
      expect(shown(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET })).wire).toBe('undici');
    },
  };

  it.each(pairs.filter(([name, documented]) => !['—', 'none'].includes(documented) || observed[name] !== undefined))(
    '%s defaults to %s',
    async (name, documented) => {
      const inspected = shown(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET }));
      const check = observed[name];
      if (check) await check(documented);
      else if (name in inspected) expect(inspected[name]).toEqual(literal(codeSpans(documented)[0] ?? ''));
      else throw new Error(`${name} has a documented default (${documented}) this test cannot observe`);
      const mebibytes = /\((\d+) MiB\)/.exec(documented)?.[1];
      if (mebibytes) expect(literal(codeSpans(documented)[0] ?? '')).toBe(Number(mebibytes) * 1024 * 1024);
    },
  );
});

describe("the configuration guide's table of accepted values", () => {
  const { rows } = findTable(['Option', 'Accepted']);
  /** Each option the table speaks of, with its text: the first cell's, and `name`: … parts of the last cell. */
  const accepted = new Map<string, string>();
  for (const [options = '', text = ''] of rows) {
    for (const name of codeSpans(options)) accepted.set(name, text.split(/; `\w+`: /)[0] ?? '');
    for (const [, name = '', part = ''] of text.matchAll(/; `(\w+)`: ([^;]+)/g)) accepted.set(name, part);
  }
  const base = { baseUrl: 'http://127.0.0.1:9', key: KEY, secret: SECRET };
  const refuses = (name: string, value: unknown): boolean => {
    try {
      new PartnerClient({ ...base, [name]: value });
      return false;
    } catch (error) {
      return error instanceof ConfigurationError && error.option === name;
    }
  };
  const accepts = (name: string, value: unknown): boolean => !refuses(name, value) && (new PartnerClient({ ...base, [name]: value }), true);

  /** An integer range as the table words it: `from 1 to 2^31−1`, `a non-negative safe integer`, `a positive safe integer`. */
  function range(text: string): [number, number] {
    const bound = (written: string): number => {
      const power = /^(\d+)\^(\d+)(?:[−-](\d+))?$/.exec(written);
      return power ? Number(power[1]) ** Number(power[2]) - Number(power[3] ?? 0) : Number(written);
    };
    const fromTo = /from (\S+) to (\S+)/.exec(text);
    if (fromTo) return [bound(fromTo[1] ?? ''), bound(fromTo[2] ?? '')];
    if (text.includes('non-negative safe integer')) return [0, Number.MAX_SAFE_INTEGER];
    if (text.includes('positive safe integer')) return [1, Number.MAX_SAFE_INTEGER];
    throw new Error(`no integer range in: ${text}`);
  }

  const checks: Record<string, (text: string) => Promise<void> | void> = {};
  for (const name of ['timeoutMs', 'maxServerWaitMs', 'maxRetries', 'maxResponseBytes']) {
    checks[name] = (text) => {
      const [min, max] = range(text);
      expect([accepts(name, min), accepts(name, max)]).toEqual([true, true]);
      expect([refuses(name, min - 1), refuses(name, max + 1), refuses(name, min + 0.5), refuses(name, String(min))]).toEqual([
        true,
        true,
        true,
        true,
      ]);
    };
  }
  for (const name of ['logLevel', 'validateResponses']) {
    checks[name] = (text) => {
      const values = codeSpans(text).map(literal);
      for (const value of values) expect([value, accepts(name, value)]).toEqual([value, true]);
      expect(refuses(name, 'verbose')).toBe(true);
      // The refusal lists the values the option takes: the table's, no more.
      try {
        new PartnerClient({ ...base, [name]: 'verbose' });
      } catch (error) {
        const listed = /must be one of (.*) \(got/
          .exec((error as Error).message)?.[1]
          ?.split(', ')
          .map(literal);
        expect(listed?.sort()).toEqual(values.sort());
      }
    };
  }
  checks['defaultHeaders'] = (text) => {
    const refusedNames = codeSpans(text).filter((span) => /^[A-Z][A-Za-z]*(?:-[A-Z][a-z]*)*$/.test(span));
    expect(refusedNames).toContain('Idempotency-Key');
    for (const name of refusedNames) expect([name, refuses('defaultHeaders', { [name]: 'x' })]).toEqual([name, true]);
    expect(accepts('defaultHeaders', { 'X-Partner': 'a b\tc' })).toBe(true);
    for (const bad of [
      { 'X(': 'a' },
      { 'X-A': 'a\r\nb' },
      { 'X-A': 'a\u0000' },
      { 'X-A': ' a' },
      { 'X-A': 'a ' },
      { 'X-A': 'é' },
      { 'X-A': 'a', 'x-a': 'b' },
    ]) {
      expect([bad, refuses('defaultHeaders', bad)]).toEqual([bad, true]);
    }
  };
  checks['rateLimit'] = (text) => {
    const limiter: RateLimiter = { acquire: () => undefined, release: () => undefined, pause: () => undefined, close: () => undefined };
    expect([accepts('rateLimit', false), accepts('rateLimit', limiter), accepts('rateLimit', {})]).toEqual([true, true, true]);
    const window = (limit: number, windowMs: number) => ({ account: { limit, windowMs } });
    expect([accepts('rateLimit', window(1, 1)), accepts('rateLimit', window(1, 2 ** 31 - 1))]).toEqual([true, true]);
    expect([
      refuses('rateLimit', window(0, 1)),
      refuses('rateLimit', window(1.5, 1)),
      refuses('rateLimit', window(1, 0)),
      refuses('rateLimit', window(1, 2 ** 31)),
    ]).toEqual([true, true, true, true]);
    const spans = codeSpans(text);
    const methods = spans.filter((span) => /^[A-Z]+$/.test(span));
    expect(methods.length).toBeGreaterThan(0);
    for (const method of methods)
      expect([method, accepts('rateLimit', { endpoints: { [`${method} /x`]: { limit: 1, windowMs: 1 } } })]).toEqual([method, true]);
    for (const key of ['HEAD /x', 'post /x', 'POST  /x', 'POST x', '/x']) {
      expect([key, refuses('rateLimit', { endpoints: { [key]: { limit: 1, windowMs: 1 } } })]).toEqual([key, true]);
    }
    for (const key of spans.filter((span) => /^'[A-Z]+ \//.test(span)).map(literal)) {
      expect([key, accepts('rateLimit', { endpoints: { [key as string]: { limit: 1, windowMs: 1 } } })]).toEqual([key, true]);
    }
  };
  checks['baseUrl'] = async (text) => {
    expect(text).toMatch(/^an absolute URL string, without whitespace or control characters anywhere/);
    expect(accepts('baseUrl', 'ftp://127.0.0.1:9')).toBe(true);
    for (const bad of [' https://partner.example', 'https://partner.example\n', 'https://partner\t.example', '/relative', 'partner.example']) {
      expect([bad, refuses('baseUrl', bad)]).toEqual([bad, true]);
    }
    // `http:` or `https:` checked at the first call; PARTNER_API_BASE_URL by the same rule, then too.
    expect(text).toContain('`http:` or `https:` checked at the first call');
    await expect(t.track(new PartnerClient({ ...base, baseUrl: 'ftp://127.0.0.1:9' })).sims.list()).rejects.toBeInstanceOf(ConfigurationError);
    vi.stubEnv('PARTNER_API_BASE_URL', ' http://127.0.0.1:9');
    await expect(t.track(new PartnerClient({ key: KEY, secret: SECRET })).sims.list()).rejects.toMatchObject({
      name: 'ConfigurationError',
      option: 'baseUrl',
    });
  };
  for (const name of ['key', 'secret']) {
    checks[name] = (text) => {
      expect(text).toBe('strings');
      expect([accepts(name, ''), refuses(name, 5), refuses(name, null)]).toEqual([true, true, true]);
    };
  }
  checks['fetch'] = (text) => {
    expect(text).toBe('a function');
    expect([accepts('fetch', () => undefined), refuses('fetch', {})]).toEqual([true, true]);
  };
  checks['dispatcher'] = (text) => {
    expect(text).toBe('an object with a `dispatch` method');
    expect([accepts('dispatcher', { dispatch: () => true }), refuses('dispatcher', {}), refuses('dispatcher', () => true)]).toEqual([
      true,
      true,
      true,
    ]);
  };
  checks['logger'] = (text) => {
    const methods = codeSpans(text);
    const logger = Object.fromEntries(methods.map((method) => [method, () => undefined]));
    expect(accepts('logger', logger)).toBe(true);
    for (const method of methods) {
      const { [method]: _left, ...without } = logger;
      expect([method, refuses('logger', without)]).toEqual([method, true]);
    }
  };
  checks['middleware'] = (text) => {
    expect(text).toBe('an array of functions');
    const pass = (request: Request, next: (request: Request) => Promise<Response>) => next(request);
    expect([accepts('middleware', [pass]), accepts('middleware', []), refuses('middleware', pass), refuses('middleware', [pass, 'x'])]).toEqual([
      true,
      true,
      true,
      true,
    ]);
  };
  for (const name of ['allowInsecureHttp', 'propagateTraceContext']) {
    checks[name] = (text) => {
      expect(text).toBe('a boolean');
      expect([accepts(name, true), accepts(name, false), refuses(name, 'true'), refuses(name, 1)]).toEqual([true, true, true, true]);
    };
  }

  it('speaks of every option the client takes', () => {
    expect([...accepted.keys()].sort()).toEqual(clientOptionNames().sort());
  });

  it.each([...accepted.entries()])('%s accepts what the table says', async (name, text) => {
    const check = checks[name];
    if (!check) throw new Error(`the table speaks of ${name}, which this test has no check for`);
    await check(text);
  });
});
