/**
 * The errors guide's table of classes ("Class | When") is the rule: for every row, the client
 * throws that class in the situation the row names — each status it gives, answered by a loopback
 * server — and the error carries the properties the row lists after its last `;`.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import * as sdk from '../../src/index.js';
import { ApiError, PartnerClient, PartnerError } from '../../src/index.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { fail, listen, ok, refusedUrl, TOKEN_ROUTE } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 0 });

const SIMS = 'GET /api/v1.1/sims';
const { rows } = findTable(['Class', 'When']);
const exported = sdk as unknown as Record<string, unknown>;

/** Error classes of the package that have guides of their own rather than a row here. */
const elsewhere: Record<string, string> = {
  PartnerError: 'the base class every row extends, in the prose above the table',
  WebhookSignatureError: 'the receiving side, in the webhooks guide',
  TransactionFailedError: 'wait() of an asynchronous operation, in its guide',
  TransactionTimeoutError: 'wait() of an asynchronous operation, in its guide',
  RetryableError: 'what a middleware throws to have its attempt retried, in the middleware guide',
};

/** What a call ended with. */
async function caught(promise: PromiseLike<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    return error;
  }
  throw new Error('the call did not fail');
}

/** A list call answered by `status`, with an envelope (or a gateway's HTML page when `code` is null). */
async function answeredWith(status: number, code: string | null = 'SOME_ERROR'): Promise<unknown> {
  t.server.on(SIMS, code === null ? { status, raw: '<html>Bad gateway</html>' } : fail(status, code, { headers: { 'retry-after': '0' } }));
  return caught(t.client.sims.list());
}

/** The statuses a row's When cell names at its start (`409`, `429 after the last retry`), or a class of them. */
function statusesOf(when: string, claimed: number[]): number[] {
  const status = /^(\d{3})\b/.exec(when);
  if (status) return [Number(status[1])];
  const other = /^any other ([45])xx/.exec(when);
  if (!other) return [];
  const first = Number(other[1]) * 100;
  const all = [...Array.from({ length: 32 }, (_, index) => first + index), first + 51, first + 99];
  return all.filter((code) => !claimed.includes(code));
}

/** Situations a row names that are not a status, per class; each ends in that class. */
const situations: Record<string, Array<() => Promise<unknown>>> = {
  AuthenticationError: [
    async () => {
      t.server.on(SIMS, fail(401, 'UNAUTHORIZED'));
      const exchanges = t.server.exchanges;
      const error = await caught((await t.connect()).sims.list());
      expect(t.server.exchanges - exchanges).toBe(2);
      return error;
    },
    async () => {
      t.server.on(TOKEN_ROUTE, fail(401, 'UNAUTHORIZED'));
      return caught(t.client.sims.list());
    },
  ],
  RateLimitError: [
    async () => {
      t.server.on(SIMS, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '0' } }));
      const sent = t.server.requestsTo(SIMS).length;
      const error = await caught((await t.connect({ maxRetries: 1 })).sims.list());
      expect(t.server.requestsTo(SIMS).length - sent).toBe(2);
      return error;
    },
  ],
  DeliveryFailedError: [
    async () => {
      t.server.on('POST /api/v1.1/webhooks/wh_1/test', fail(502, 'DELIVERY_FAILED'));
      return caught(t.client.webhooks.test('wh_1'));
    },
  ],
  InternalServerError: [() => answeredWith(502, null)],
  InvalidResponseError: ['{"success":true,"data":[', '<html><body>ok</body></html>', ''].map((raw) => async () => {
    t.server.on(SIMS, { status: 200, raw });
    return caught(t.client.sims.list());
  }),
  ConnectionError: [
    async () => caught(new PartnerClient({ baseUrl: await refusedUrl(), key: KEY, secret: SECRET, maxRetries: 0 }).sims.list()),
    async () => {
      // A server that takes the connection and resets it without an answer.
      const reset = createServer((socket) => socket.resetAndDestroy());
      await new Promise<void>((resolve) => reset.listen(0, '127.0.0.1', resolve));
      const { port } = reset.address() as { port: number };
      try {
        return await caught(new PartnerClient({ baseUrl: `http://127.0.0.1:${port}`, key: KEY, secret: SECRET, maxRetries: 0 }).sims.list());
      } finally {
        reset.close();
      }
    },
  ],
  TimeoutError: [
    async () => {
      t.server.on(SIMS, { hang: true });
      return caught((await t.connect({ timeoutMs: 50 })).sims.list());
    },
  ],
  ResponseValidationError: [
    async () => {
      t.server.on(SIMS, ok([{ iccid: 5 }], { meta: { page: 1, pageSize: 20, total: 1, totalPages: 1 } }));
      return caught(t.client.sims.list());
    },
  ],
  ConfigurationError: [
    async () => caught(() => new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, timeoutMs: -1 })),
    async () => caught(() => new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, timeoutMS: 1 } as never)),
    async () => caught(new PartnerClient({ key: KEY, secret: SECRET }).sims.list()),
    async () => caught(new PartnerClient({ baseUrl: t.server.url, secret: SECRET }).sims.list()),
    async () => caught(new PartnerClient({ baseUrl: t.server.url, key: KEY }).sims.list()),
    async () => caught(new PartnerClient({ baseUrl: 'http://partner.example', key: KEY, secret: SECRET }).sims.list()),
  ],
  RequestValidationError: [
    async () => {
      const error = await caught(t.client.sms.send({} as never));
      expect(t.server.requests).toHaveLength(0);
      return error;
    },
    () => caught(t.client.sims.list({}, { timeoutMs: -1 })),
    () => caught(t.client.sims.list({ pagesize: 1 } as never)),
    () => caught(t.client.request({ method: 'GET', path: 'api/v1.1/sims' })),
  ],
  RedirectError: [
    async () => {
      t.server.on(SIMS, { status: 302, headers: { location: 'https://elsewhere.example/api/v1.1/sims' }, raw: '' });
      const error = await caught(t.client.sims.list());
      expect(t.server.requestsTo(SIMS)).toHaveLength(1);
      return error;
    },
  ],
  ClientClosedError: [
    async () => {
      const client = await t.connect();
      await client.close();
      return caught(client.sims.list());
    },
    async () => {
      t.server.on(SIMS, { hang: true });
      const client = await t.connect();
      const call = caught(client.sims.list());
      while (t.server.requestsTo(SIMS).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await client.destroy();
      return call;
    },
  ],
  ResponseTooLargeError: [
    async () => {
      t.server.on(SIMS, ok(Array.from({ length: 100 }, () => ({ iccid: 'x'.repeat(20) }))));
      return caught((await t.connect({ maxResponseBytes: 1000 })).sims.list());
    },
    async () => {
      // Headers past the HTTP parser's limit (16 KiB under Node).
      const loud = await listen((_request, response) => response.writeHead(200, { 'x-big': 'x'.repeat(70_000) }).end('{}'));
      try {
        return await caught(new PartnerClient({ baseUrl: loud.url, key: KEY, secret: SECRET, maxRetries: 0 }).sims.list());
      } finally {
        await loud.close();
      }
    },
  ],
};

/** The properties a row lists after its last `;` (`retryAfterSeconds`, `code: 'INSECURE_TRANSPORT'`), as [name, value?]. */
function propertiesOf(when: string): Array<[string, unknown]> {
  const tail = when.split('; ').slice(1).at(-1) ?? '';
  return codeSpans(tail)
    .filter((span) => /^\w+(?:: '.*')?$/.test(span))
    .map((span) => {
      const [name = '', value] = span.split(': ');
      return [name, value === undefined ? undefined : value.slice(1, -1)];
    });
}

describe("the errors guide's table of error classes", () => {
  it('has a row for every error class the package exports, but those with guides of their own', () => {
    const classes = Object.entries(exported)
      .filter(([, value]) => typeof value === 'function' && (value === PartnerError || value.prototype instanceof PartnerError))
      .map(([name]) => name)
      .filter((name) => !(name in elsewhere));
    expect(rows.map(([name]) => codeSpans(name ?? '')[0]).sort()).toEqual(classes.sort());
  });

  const claimed = rows.flatMap(([, when = '']) => (/^(\d{3})\b(?! with code)/.exec(when) ? [Number(when.slice(0, 3))] : []));

  it.each(rows.map(([name = '', when = '']) => [codeSpans(name)[0] ?? '', when]))('throws %s where its row says', async (className, when) => {
    const errorClass = exported[className] as new (...args: never[]) => Error;
    const errors: unknown[] = [];
    const code = /with code `(\w+)`/.exec(when)?.[1];
    // A status with a code of its own is the situation below (the route that answers it), not any call's.
    if (!code) for (const status of statusesOf(when, claimed)) errors.push(await answeredWith(status));
    for (const situation of situations[className] ?? []) errors.push(await situation());
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect([className, (error as Error).name]).toEqual([className, className]);
      expect(error).toBeInstanceOf(errorClass);
      const parent = /extends `(\w+)`/.exec(when)?.[1];
      if (parent) expect(error).toBeInstanceOf(exported[parent] as new () => Error);
      if (code) expect(error).toMatchObject({ code });
    }
    for (const [property, value] of propertiesOf(when)) {
      // A property with a value is that of the situation that names it (one error of the row); a bare one is on every error.
      if (value === undefined) for (const error of errors) expect([property, property in (error as object)]).toEqual([property, true]);
      else expect(errors.some((error) => (error as Record<string, unknown>)[property] === value)).toBe(true);
    }
    const status = /^(\d{3})\b/.exec(when)?.[1];
    if (status && errors[0] instanceof ApiError) expect(errors.every((error) => (error as ApiError).status === Number(status))).toBe(true);
  });

  it('names the unknown or invalid client option in `option`', async () => {
    const row = rows.find(([name]) => name === '`ConfigurationError`');
    expect(row?.[1]).toContain('(`option` names it)');
    const [invalid, unknown] = situations['ConfigurationError'] ?? [];
    expect(await invalid?.()).toMatchObject({ option: 'timeoutMs' });
    expect(await unknown?.()).toMatchObject({ option: 'timeoutMS' });
  });
});
