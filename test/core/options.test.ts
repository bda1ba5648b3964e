import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, PartnerClient, RequestValidationError } from '../../src/index.js';
import type { RequestOptions } from '../../src/index.js';
import { ok, tokenAnswer } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer();
const PING = 'GET /api/v1.1/ping';

/** Builds a client with one option set to a value its type forbids, as a JavaScript caller could. */
function construct(option: string, value: unknown): unknown {
  try {
    const client = new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, [option]: value });
    void client.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

const badClientOptions: Array<[string, unknown]> = [
  ['timeoutMs', Number.POSITIVE_INFINITY],
  ['timeoutMs', Number.NaN],
  ['timeoutMs', 0],
  ['timeoutMs', -1],
  ['timeoutMs', 1.5],
  ['timeoutMs', 2 ** 31],
  ['timeoutMs', '5000'],
  ['timeoutMs', 5000n],
  ['timeoutMs', null],
  ['maxRetries', Number.NaN],
  ['maxRetries', -1],
  ['maxRetries', 1.5],
  ['maxRetries', 11],
  ['maxRetries', '2'],
  ['maxRetries', 2n],
  ['defaultHeaders', { 'x-api-key': 'abc\r' }],
  ['defaultHeaders', { 'x-api-key': 'a\nInjected: 1' }],
  ['defaultHeaders', { 'x-api-key': 'a\u0000b' }],
  ['defaultHeaders', { 'x-api-key': ' padded' }],
  ['defaultHeaders', { 'x-tenant': 'Équipe' }],
  ['defaultHeaders', { 'x tenant': 'a' }],
  ['defaultHeaders', { 'x-count': 5 }],
  ['defaultHeaders', { 'content-length': '5' }],
  ['defaultHeaders', 'x-api-key: abc'],
  ['defaultHeaders', { 'idempotency-key': 'same-for-every-call' }],
  ['defaultHeaders', { 'X-Api-Key': 'a', 'x-api-key': 'b' }],
  ['logLevel', 'verbose'],
  ['validateResponses', 'lenient'],
  ['rateLimit', true],
  ['rateLimit', { account: { limit: 0, windowMs: 60_000 } }],
  ['rateLimit', { account: { limit: 10, windowMs: Number.POSITIVE_INFINITY } }],
  ['rateLimit', { endpoints: { 'GET /api/v1.1/sims': { limit: '5', windowMs: 1000 } } }],
  // Keys that name no route: their limit would apply to no call.
  ['rateLimit', { endpoints: { 'post /api/v1.1/sms': { limit: 10, windowMs: 1000 } } }],
  ['rateLimit', { endpoints: { 'POST  /api/v1.1/sms': { limit: 10, windowMs: 1000 } } }],
  ['rateLimit', { endpoints: { 'POST /api/v1.1/sms ': { limit: 10, windowMs: 1000 } } }],
  ['rateLimit', { endpoints: { '/api/v1.1/sms': { limit: 10, windowMs: 1000 } } }],
  ['rateLimit', { endpoints: { 'POST api/v1.1/sms': { limit: 10, windowMs: 1000 } } }],
  ['rateLimit', { endpoints: { 'SEND /api/v1.1/sms': { limit: 10, windowMs: 1000 } } }],
  ['baseUrl', 'api.example.com'],
  ['baseUrl', 42],
  ['baseUrl', 'https://partner.example.com/api'],
  ['baseUrl', 'https://partner.example.com/api/v1.1/'],
  ['baseUrl', 'https://partner.example.com/API/V3'],
  ['baseUrl', 'https://partner.example.com/gateway/api/v1.1'],
  // A URL parser strips these at either end and drops tabs and newlines inside: not the URL written.
  ['baseUrl', ' https://partner.example.com'],
  ['baseUrl', 'https://partner.example.com\n'],
  ['baseUrl', 'https://partner.exa\tmple.com'],
  ['baseUrl', 'https://partner.example.com/gate\nway'],
  ['baseUrl', '\u0000https://partner.example.com'],
  ['fetch', 'fetch'],
  ['dispatcher', {}],
  ['logger', { info() {} }],
  ['allowInsecureHttp', 'yes'],
  ['maxResponseBytes', 0],
  ['maxResponseBytes', 1.5],
  ['maxResponseBytes', '1048576'],
  ['maxServerWaitMs', -1],
  ['maxServerWaitMs', 2 ** 53],
  ['maxServerWaitMs', 60_000n],
  ['propagateTraceContext', 'true'],
  ['propagateTraceContext', 1],
];

describe('client options', () => {
  it.each(badClientOptions)('refuses %s = %o at construction with a ConfigurationError naming it', (option, value) => {
    const error = construct(option, value);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).option).toBe(option);
    expect((error as Error).message).toContain(option);
    expect(t.server.requests).toHaveLength(0);
  });

  it('accepts the ends of every range and sends with them', async () => {
    for (const [option, value] of [
      ['timeoutMs', 1],
      ['timeoutMs', 2 ** 31 - 1],
      ['maxRetries', 0],
      ['maxRetries', 10],
      ['maxResponseBytes', 1],
      ['maxServerWaitMs', 2 ** 31 - 1],
    ] as const) {
      expect(construct(option, value), option).toBeUndefined();
    }
    t.server.on(PING, ok({ pong: true }));
    const client = await t.connect({
      timeoutMs: 2 ** 31 - 1,
      maxRetries: 10,
      defaultHeaders: { 'X-Tenant': 'acme\tcorp', 'x-api-key': 'k-1' },
      rateLimit: { account: { limit: 5, windowMs: 1000 }, endpoints: { [PING]: { limit: 1, windowMs: 1 } } },
      logLevel: 'off',
      validateResponses: 'off',
    });
    await expect(client.request({ method: 'GET', path: '/api/v1.1/ping' })).resolves.toEqual({ pong: true });
    expect(t.server.requestsTo(PING)[0]?.headers['x-tenant']).toBe('acme\tcorp');
  });

  it('never quotes a refused key or secret in the error', () => {
    for (const option of ['key', 'secret']) {
      const error = construct(option, 987654321987);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(JSON.stringify(error)).not.toContain('987654321987');
      expect((error as Error).message).not.toContain('987654321987');
    }
  });

  it('never quotes the refused value of a header in the error: it may be a credential', () => {
    for (const value of ['sk_live_abcdef\r\n', 987654321987]) {
      const error = construct('defaultHeaders', { 'x-api-key': value });
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(JSON.stringify(error)).not.toContain(String(value).trim());
      expect((error as Error).message).not.toContain(String(value).trim());
    }
  });
});

const badRequestOptions: Array<[keyof RequestOptions, unknown]> = [
  ['timeoutMs', Number.NaN],
  ['timeoutMs', Number.POSITIVE_INFINITY],
  ['timeoutMs', -1],
  ['timeoutMs', 0],
  ['timeoutMs', 1.5],
  ['timeoutMs', '2'],
  ['timeoutMs', 2 ** 31],
  ['maxRetries', Number.NaN],
  ['maxRetries', Number.POSITIVE_INFINITY],
  ['maxRetries', -1],
  ['maxRetries', 1.5],
  ['maxRetries', '2'],
  ['maxRetries', 2n],
  ['idempotencyKey', ''],
  ['idempotencyKey', 'order-1\r\n'],
  ['idempotencyKey', 'order\u00001'],
  ['idempotencyKey', 'order-1\t'],
  ['idempotencyKey', 'k'.repeat(256)],
  ['idempotencyKey', 'clé'],
  ['idempotencyKey', 42],
  ['signal', { aborted: false }],
  ['signal', 'abort'],
  ['headers', { 'x-trace': 'abc\r' }],
  ['headers', { 'x-trace': 'abc\n' }],
  ['headers', { 'x-trace': 'a\u007fb' }],
  ['headers', { 'x-trace': 'trailing ' }],
  ['headers', { 'bad:name': 'v' }],
  ['headers', { 'transfer-encoding': 'chunked' }],
  ['headers', { 'x-trace': ['a', 'b'] }],
  ['headers', ['x-trace', 'a']],
  ['headers', { 'X-Trace': 'a', 'x-trace': 'b' }],
  ['headers', { 'Idempotency-Key': 'order-1' }],
];

describe('per-request options', () => {
  it.each(badRequestOptions)('refuses %s = %o with a RequestValidationError naming it; nothing is sent', async (option, value) => {
    t.server.on(PING, ok({ pong: true }));
    const options = { [option]: value } as RequestOptions;
    const raw = await t.client.request({ method: 'GET', path: '/api/v1.1/ping', ...options }).catch((caught: unknown) => caught);
    const viaResource = await t.client.sims.retrieveSubscription('8901', options).catch((caught: unknown) => caught);
    for (const error of [raw, viaResource]) {
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]?.path.split('.')[0]).toBe(option);
    }
    expect(t.server.requests).toHaveLength(0);
  });

  it.each([
    ['maxRetries', Number.NaN],
    ['signal', { aborted: false, addEventListener() {} }],
  ])('refuses %s = %o of a paginated list before the first page, awaited or iterated', async (option, value) => {
    const options = { [option]: value } as RequestOptions;
    const error = await t.client.sims.list({}, options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    let iterated: unknown;
    try {
      for await (const _sim of t.client.sims.list({}, options)) break;
    } catch (caught) {
      iterated = caught;
    }
    expect(iterated).toBeInstanceOf(RequestValidationError);
    expect(t.server.requests).toHaveLength(0);
  });

  it('sends valid options exactly: the key, the headers, the per-call limits', async () => {
    t.server.on('POST /api/v1.1/thing', ok({ done: true }));
    await t.client.request({
      method: 'POST',
      path: '/api/v1.1/thing',
      body: {},
      idempotencyKey: 'order 42/cancel:1',
      headers: { 'X-Trace': 'a b\tc' },
      timeoutMs: 5_000,
    });
    const sent = t.server.requestsTo('POST /api/v1.1/thing').at(-1);
    expect(sent?.headers['idempotency-key']).toBe('order 42/cancel:1');
    expect(sent?.headers['x-trace']).toBe('a b\tc');
  });
});

describe('a header value both transports would alter', () => {
  for (const transport of ['undici', 'fetch'] as const) {
    it(`is refused on the ${transport} transport, never stripped and sent`, async () => {
      t.server.on(PING, ok({ pong: true }));
      const client = await t.connect(transport === 'fetch' ? { fetch: globalThis.fetch } : {});
      for (const value of ['abc\r', 'abc\n', '\rabc', 'a\r\nb', ' abc', 'abc\t']) {
        const error = await client
          .request({ method: 'GET', path: '/api/v1.1/ping', headers: { 'x-trace': value } })
          .catch((caught: unknown) => caught);
        expect(error, JSON.stringify(value)).toBeInstanceOf(RequestValidationError);
      }
      expect(t.server.requests).toHaveLength(0);
    });
  }
});

describe('baseUrl that already names the API path', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('names the fix: the origin, plus the deployment prefix when there is one', () => {
    const error = construct('baseUrl', 'https://partner.example.com/gateway/api/v1.1/') as ConfigurationError;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toBe(
      "invalid client option baseUrl: ends in '/api/v1.1', which every route already carries: use the origin, plus a path prefix only when your deployment has one ('https://partner.example.com/gateway')",
    );
  });

  it('still takes a deployment prefix that does not end in the API path', async () => {
    t.server.on('POST /gateway/api/v1.1/auth/token', tokenAnswer());
    t.server.on('GET /gateway/api/v1.1/thing', ok(1));
    const client = await t.connect({ baseUrl: `${t.server.url}/gateway/` });
    await expect(client.request({ method: 'GET', path: '/api/v1.1/thing' })).resolves.toBe(1);
  });

  it.each([' {url}', '{url}\n', '{url}\r\n', '{url}/\t'])(
    'refuses PARTNER_API_BASE_URL %j, padded, on first use, naming it and the rule',
    async (spelling) => {
      vi.stubEnv('PARTNER_API_BASE_URL', spelling.replace('{url}', t.server.url));
      const client = t.track(new PartnerClient({ key: KEY, secret: SECRET }));
      const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toMatchObject({
        option: 'baseUrl',
        message: expect.stringMatching(
          /^invalid PARTNER_API_BASE_URL: must be an absolute URL without whitespace or control characters \(U\+00(20|0A|0D|09) at index \d+\)$/,
        ),
      });
      expect(t.server.requests).toHaveLength(0);
    },
  );

  it('refuses PARTNER_API_BASE_URL ending in /api/v3 on first use, before anything is sent', async () => {
    vi.stubEnv('PARTNER_API_BASE_URL', `${t.server.url}/api/v3`);
    const client = t.track(new PartnerClient({ key: KEY, secret: SECRET }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ option: 'baseUrl' });
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('baseUrl with an internationalized host', () => {
  it('is taken every time, however often clients are built (the check does not misread Latin-1 letters once optimized)', () => {
    // Enough constructions for the engine to optimize the option check: URL.canParse then
    // misreads `münchen` on Node 20, and a check built on it refuses the URL at random.
    let refused = 0;
    for (let i = 0; i < 20_000; i += 1) {
      try {
        new PartnerClient({ baseUrl: 'https://münchen.example', key: KEY, secret: SECRET });
      } catch {
        refused += 1;
      }
    }
    expect(refused).toBe(0);
  });
});

describe('a baseUrl without its scheme', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it.each([
    ['api.example.com', 'is not an absolute URL (got "api.example.com"): it needs a scheme, as in "https://api.example.com"'],
    [
      'localhost:4010',
      `has no scheme (got "localhost:4010", read as the scheme 'localhost:'): use "https://localhost:4010", or http:// for a local sandbox`,
    ],
    [
      'partner.example.com/gateway',
      'is not an absolute URL (got "partner.example.com/gateway"): it needs a scheme, as in "https://partner.example.com/gateway"',
    ],
  ])('shows %s and suggests https://', (value, problem) => {
    const error = construct('baseUrl', value) as ConfigurationError;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.option).toBe('baseUrl');
    expect(error.message).toBe(`invalid client option baseUrl: ${problem}`);
  });

  it('never shows the user-info of the value', () => {
    const error = construct('baseUrl', 'ops:hunter2@api.example.com') as ConfigurationError;
    expect(error.message).toContain('"***@api.example.com"');
    expect(error.message).not.toContain('hunter2');
  });

  it('says so for PARTNER_API_BASE_URL too, at the first call, naming where the value came from', async () => {
    vi.stubEnv('PARTNER_API_BASE_URL', 'api.example.com');
    const client = t.track(new PartnerClient({ key: KEY, secret: SECRET }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      'invalid PARTNER_API_BASE_URL: is not an absolute URL (got "api.example.com"): it needs a scheme, as in "https://api.example.com"',
    );
  });
});
