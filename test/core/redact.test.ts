import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import {
  type ApiError,
  ConfigurationError,
  ConnectionError,
  PartnerClient,
  TransactionFailedError,
  TransactionTimeoutError,
} from '../../src/index.js';
import type { Logger } from '../../src/index.js';
import { Scrubber } from '../../src/core/redact.js';
import { fail, ok, TOKEN_ROUTE } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const TOKEN = 'tok-1-a8f3c2e1d4b5';
const SECRETS = [KEY, SECRET, TOKEN];

const t = useTestServer();

/** Every way an error or object is commonly printed or shipped to a tracker. */
function renderings(value: unknown): string[] {
  const out = [inspect(value, { depth: 10 }), JSON.stringify(value) ?? '', String(value)];
  if (value instanceof Error) out.push(value.message, value.stack ?? '');
  return out;
}

function expectNoSecret(value: unknown): void {
  for (const text of renderings(value)) for (const secret of SECRETS) expect(text).not.toContain(secret);
}

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (message: string, fields?: Record<string, unknown>) => void lines.push(`${message} ${JSON.stringify(fields)}`);
  return { lines, debug: log, info: log, warn: log, error: log };
}

describe('secrets never leave in errors', () => {
  it('scrubs credentials a server echoes into an error message and details', async () => {
    t.server.on(TOKEN_ROUTE, fail(401, 'UNAUTHORIZED', { message: `bad key ${KEY} or secret ${SECRET}`, details: { key: KEY, secret: SECRET } }));
    const client = t.client;
    const error = await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain('[REDACTED]');
    expectNoSecret(error);
  });

  it('scrubs the access token from errors of authenticated calls', async () => {
    t.server.on(
      'GET /api/v1.1/ping',
      fail(400, 'VALIDATION_ERROR', { message: `token ${TOKEN} not allowed here`, details: { validationErrors: [TOKEN] } }),
    );
    const client = t.client;
    const error = await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    expectNoSecret(error);
  });

  it.each([
    ['a 500 after retries', fail(500, 'INTERNAL_ERROR')],
    ['a truncated body', { status: 200, raw: '{"success":tr' }],
    ['data that fails validation', ok({ wrong: true })],
  ])('keeps %s free of secrets', async (_name, reply) => {
    t.server.on('GET /api/v1.1/ping', reply);
    const client = await t.connect({ maxRetries: 0 });
    const { z } = await import('zod');
    const error = await client
      .request({ method: 'GET', path: '/api/v1.1/ping', schema: z.object({ pong: z.boolean() }) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expectNoSecret(error);
  });

  it('scrubs a secret however deep the server nests it in details', async () => {
    let nested: unknown = { token: TOKEN, note: `key ${KEY}` };
    for (let level = 0; level < 12; level++) nested = { level, nested };
    t.server.on('GET /api/v1.1/ping', fail(400, 'VALIDATION_ERROR', { details: { nested } }));
    const error = await t.client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expectNoSecret(error);
  });

  it('keeps null and numbers in details as they are, and still throws the typed error for details nested without end', async () => {
    // Objects eight levels below details, as deep as any answer of the API nests, are kept as received.
    let eightDeep: unknown = { leaf: 1 };
    for (let level = 0; level < 7; level++) eightDeep = { level, nested: eightDeep };
    const endless = (open: string, close: string) =>
      `{"success":false,"error":{"code":"VALIDATION_ERROR","message":"m","details":{"deep":${open.repeat(100_000)}1${close.repeat(100_000)}}}}`;
    t.server.on('GET /api/v1.1/ping', [
      fail(400, 'VALIDATION_ERROR', { details: { field: null, limit: 3, items: [null, 1], eightDeep } }),
      { status: 400, raw: endless('[', ']') },
      { status: 400, raw: endless('{"a":', '}') },
    ]);
    const ping = () => t.client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    expect(await ping()).toMatchObject({ details: { field: null, limit: 3, items: [null, 1], eightDeep } });
    expect(await ping()).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(await ping()).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('keeps timeouts and connection errors free of secrets', async () => {
    t.server.on('GET /api/v1.1/ping', { hang: true });
    const client = await t.connect({ timeoutMs: 100, maxRetries: 0 });
    expectNoSecret(await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught));
    const url = t.server.url;
    await t.server.close();
    const refused = t.track(new PartnerClient({ baseUrl: url, key: KEY, secret: SECRET, maxRetries: 0 }));
    expectNoSecret(await refused.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught));
  });
});

describe('secrets of earlier tokens and of transactions', () => {
  it('keeps scrubbing a token replaced by a scheduled refresh while a call that carried it is in flight', async () => {
    const PING = 'GET /api/v1.1/ping';
    t.server.on(PING, [
      ok({ pong: true }),
      { delayMs: 300, ...fail(400, 'VALIDATION_ERROR', { message: `token ${TOKEN} not allowed`, details: { token: TOKEN } }) },
      ok({ pong: true }),
    ]);
    const client = await t.connect({ maxRetries: 0 });
    await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    const slow = client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 50));
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // Past the token's refresh time: the next call exchanges again and the first token is replaced.
      vi.setSystemTime(Date.now() + 3_590_000);
      await client.request({ method: 'GET', path: '/api/v1.1/ping' });
      expect(t.server.exchanges).toBe(2);
    } finally {
      vi.useRealTimers();
    }
    const error = await slow;
    expect((error as Error).message).toContain('[REDACTED]');
    expectNoSecret(error);
  });

  it('scrubs values of six characters or more, never shorter ones that would blank out ordinary words', () => {
    const scrubber = new Scrubber();
    for (const value of ['abcde', 'abcdef', '', undefined]) scrubber.add(value);
    expect(scrubber.text('abcde abcdef abcdefg')).toBe('abcde [REDACTED] [REDACTED]g');
  });

  it('keeps scrubbing the last 16 replaced tokens, and lets older ones go so that the list stays bounded', () => {
    // As the transport does on each new token: the one it replaces is retired, the new one added.
    const tokens = Array.from({ length: 18 }, (_, index) => `tok-${index}-a8f3c2e1d4b5`);
    const scrubber = new Scrubber();
    scrubber.add(tokens[0]);
    for (let index = 1; index < tokens.length; index++) {
      scrubber.retire(tokens[index - 1]);
      // Retiring the same token again, or one never added, changes nothing.
      scrubber.retire(tokens[index - 1]);
      scrubber.retire(`tok-unknown-${index}-c0ffee`);
      scrubber.add(tokens[index]);
    }
    expect(scrubber.text(tokens.join(' '))).toBe([tokens[0], ...Array<string>(17).fill('[REDACTED]')].join(' '));
  });

  it('scrubs a FAILED transaction: message, error, errorCode and transaction', async () => {
    t.server.on('GET /api/v1.1/ping', ok({ pong: true }));
    t.server.on(
      'GET /api/v3/transactions/tx_1',
      ok({
        transactionId: 'tx_1',
        status: 'FAILED',
        errorCode: 'PRICING_NOT_CONFIGURED',
        error: `refused for ${KEY} / ${TOKEN}`,
        result: { echo: SECRET },
      }),
    );
    const client = t.client;
    await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    const error = await client.transactions.wait('tx_1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionFailedError);
    const failed = error as TransactionFailedError;
    expect(failed.error).toBe('refused for [REDACTED] / [REDACTED]');
    expect(failed.transaction.result).toEqual({ echo: '[REDACTED]' });
    expect(failed.errorCode).toBe('PRICING_NOT_CONFIGURED');
    expectNoSecret(error);
    expectNoSecret(failed.transaction);
  });

  it('scrubs the last transaction a timed-out wait carries', async () => {
    t.server.on('GET /api/v1.1/ping', ok({ pong: true }));
    t.server.on('GET /api/v3/transactions/tx_1', ok({ transactionId: 'tx_1', status: 'PENDING', message: `queued for ${KEY}` }));
    const client = t.client;
    await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    const error = await client.transactions.wait('tx_1', { timeoutMs: 150 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionTimeoutError);
    expectNoSecret((error as TransactionTimeoutError).lastTransaction);
  });
});

describe('secrets never leave through the cause chain of a connection error', () => {
  /** Every link of `error.cause`, rendered the ways a tracker walks it. */
  function expectNoSecretInChain(error: unknown): void {
    expectNoSecret(error);
    for (let link = (error as Error).cause, depth = 0; link !== undefined && depth < 10; depth++) {
      expectNoSecret(link);
      link = link instanceof Error ? link.cause : undefined;
    }
  }

  it('scrubs a dispatcher error that echoes the Authorization header, at every depth', async () => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    class EchoingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        const headers = options.headers as Record<string, string>;
        if (options.path.endsWith('/ping')) {
          const inner = Object.assign(new Error(`upstream refused ${headers['authorization']}`), { code: 'UND_ERR_SOCKET' });
          const outer = new Error(`socket closed while sending ${JSON.stringify(headers)}`, { cause: inner });
          queueMicrotask(() => handler.onError?.(outer));
          return true;
        }
        return super.dispatch(options, handler);
      }
    }
    const dispatcher = new EchoingAgent();
    const client = await t.connect({ dispatcher, maxRetries: 0 });
    const error = await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    await dispatcher.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'CONNECTION_ERROR' });
    expect(inspect((error as Error).cause, { depth: 10 })).toContain('[REDACTED]');
    expectNoSecretInChain(error);
  });

  it('scrubs a custom fetch that rejects with the key and secret in its message', async () => {
    const fetchImpl: typeof fetch = async (_input, init) => {
      throw new TypeError('fetch failed', { cause: new Error(`could not send ${String(init?.body)}`) });
    };
    const client = t.track(new PartnerClient({ baseUrl: 'https://api.example.test', key: KEY, secret: SECRET, fetch: fetchImpl, maxRetries: 0 }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expectNoSecretInChain(error);
  });

  it('scrubs response headers kept on an API error when a proxy echoes the token', async () => {
    t.server.on('GET /api/v1.1/ping', fail(403, 'FORBIDDEN', { headers: { 'x-echo-authorization': `Bearer ${TOKEN}` } }));
    const client = t.client;
    const error = (await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught)) as ApiError;
    expect(error.headers['x-echo-authorization']).toBe('Bearer [REDACTED]');
    expectNoSecret(error.headers);
  });
});

describe('secrets never leave in printed objects and logs', () => {
  it('prints a client, before and after its first call, with the base URL and no credentials', async () => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    const client = await t.connect({ defaultHeaders: { 'X-Partner': 'p1' } });
    expectNoSecret(client);
    await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    expectNoSecret(client);
    expect(inspect(client)).toContain(t.server.url);
  });

  it('drops credentials embedded in the base URL from printed output', () => {
    const client = t.track(new PartnerClient({ baseUrl: `https://user:${SECRET}@api.example.test/`, key: KEY, secret: SECRET }));
    expectNoSecret(client);
  });

  it('logs requests, the re-authentication and retries at debug level with every secret redacted', async () => {
    t.server.on('GET /api/v1.1/ping', [
      fail(401, 'UNAUTHORIZED'),
      fail(500, 'INTERNAL_ERROR', { message: `failed for ${KEY}:${SECRET} with tok-2-a8f3c2e1d4b5` }),
      ok(1),
    ]);
    const logger = capture();
    const client = await t.connect({ logger, logLevel: 'debug' });
    await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    expect(logger.lines.some((line) => line.startsWith('GET /api/v1.1/ping'))).toBe(true);
    expect(logger.lines.some((line) => line.includes('"authorization":"[REDACTED]"'))).toBe(true);
    expect(logger.lines.some((line) => line.startsWith('token refused'))).toBe(true);
    expect(logger.lines.some((line) => line.startsWith('retrying') && line.includes('[REDACTED]'))).toBe(true);
    for (const line of logger.lines) for (const secret of [...SECRETS, 'tok-2-a8f3c2e1d4b5']) expect(line).not.toContain(secret);
  });
});

describe('plain http', () => {
  const countingFetch = () => {
    const calls: string[] = [];
    const fetchImpl: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(
        JSON.stringify({
          success: true,
          data: { access_token: TOKEN, token_type: 'Bearer', expires_in: 3600, expires_at: new Date(Date.now() + 3_600_000).toISOString() },
        }),
        { status: 200 },
      );
    };
    return { calls, fetchImpl };
  };

  it('refuses to send credentials over http:// to a non-loopback host, before sending anything', async () => {
    const { calls, fetchImpl } = countingFetch();
    const client = t.track(new PartnerClient({ baseUrl: 'http://api.example.test', key: KEY, secret: SECRET, fetch: fetchImpl }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ code: 'INSECURE_TRANSPORT' });
    expect((error as Error).message).toContain('refusing to send credentials over plain http:// to api.example.test');
    expect((error as Error).message).toContain('allowInsecureHttp: true');
    expect(calls).toEqual([]);
  });

  it('refuses a baseUrl that is neither https:// nor http://, before sending anything', async () => {
    const { calls, fetchImpl } = countingFetch();
    const client = t.track(new PartnerClient({ baseUrl: 'ftp://api.example.test', key: KEY, secret: SECRET, fetch: fetchImpl }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('baseUrl must use https:// (got ftp:)');
    expect(calls).toEqual([]);
  });

  it.each([
    'http://localhost.example.com',
    'http://localhost..',
    'http://127.0.0.1.nip.io',
    'http://128.0.0.1',
    'http://0.0.0.0',
    'http://[::2]',
    'http://[::ffff:10.0.0.1]',
    'http://10.0.0.1',
  ])('refuses plain http to %s, which is not loopback', async (baseUrl) => {
    const { calls, fetchImpl } = countingFetch();
    const client = t.track(new PartnerClient({ baseUrl, key: KEY, secret: SECRET, fetch: fetchImpl }));
    await expect(client.request({ method: 'GET', path: '/x', auth: false })).rejects.toMatchObject({ code: 'INSECURE_TRANSPORT' });
    expect(calls).toEqual([]);
  });

  it('sends over http:// to a non-loopback host when allowInsecureHttp is set', async () => {
    const { calls, fetchImpl } = countingFetch();
    const client = t.track(
      new PartnerClient({ baseUrl: 'http://api.example.test', key: KEY, secret: SECRET, fetch: fetchImpl, allowInsecureHttp: true }),
    );
    await client.request({ method: 'GET', path: '/api/v1.1/auth/token', auth: false });
    expect(calls).toEqual(['http://api.example.test/api/v1.1/auth/token']);
  });

  it.each([
    'http://localhost:9',
    'http://LOCALHOST:9',
    'http://localhost.:9',
    'http://127.0.0.1:9',
    'http://127.1.2.3:9',
    'http://0x7f.1:9',
    'http://[::1]:9',
    'http://[0:0:0:0:0:0:0:1]:9',
    'http://[::ffff:127.0.0.1]:9',
  ])('allows plain http to loopback %s', async (baseUrl) => {
    const { calls, fetchImpl } = countingFetch();
    const client = t.track(new PartnerClient({ baseUrl, key: KEY, secret: SECRET, fetch: fetchImpl }));
    await client.request({ method: 'GET', path: '/x', auth: false });
    expect(calls).toHaveLength(1);
  });
});
