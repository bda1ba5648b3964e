/**
 * Middleware through the public API over loopback: where it runs (once per attempt, inside the
 * retries, after the bearer and the key), what it may change and what it cannot, how what it
 * returns or throws is handled — with each pitfall the peers' trackers report as a case that a
 * naive design fails: a hook run again on a retry overwriting a refreshed token, a body consumed
 * by a hook, options mutated by one attempt leaking into the next, an error thrown in an error
 * hook swallowed.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  type Middleware,
  type MiddlewareContext,
  NotFoundError,
  PartnerClient,
  RateLimitError,
  RetryableError,
  TimeoutError,
  ClientClosedError,
  RequestValidationError,
} from '../../src/index.js';
import { settleOnFakeClock, useFakeClock } from '../helpers/clock.js';
import { fail, ok, TOKEN_ROUTE } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const SIMS = 'GET /api/v1.1/sims';
const SMS = 'POST /api/v1.1/sms';
const page = (data: unknown[]) => ok(data, { meta: { page: 1, pageSize: 20, total: data.length, totalPages: 1 } });
const sim = {
  iccid: '8961000000000000001',
  phoneNumber: '+61400000001',
  status: 'ACTIVE',
  assignedStatus: 'UNASSIGNED',
  isEsim: false,
  operator: 'op',
  network: 'net',
  createdAt: '2024-01-01T00:00:00.000Z',
};
const sms = { fromNumber: '+15550100001', toNumber: '+15550100002', text: 'hi' };

const t = useTestServer({ maxRetries: 2 });

/** The envelope of a success, as a stub returns it. */
const envelope = (data: unknown, meta?: unknown): string =>
  JSON.stringify(meta === undefined ? { success: true, data } : { success: true, data, meta });

for (const wire of ['undici', 'fetch'] as const) {
  describe(`middleware on the ${wire} wire`, () => {
    useFakeClock();
    const connect = (options: ConstructorParameters<typeof PartnerClient>[0] = {}) =>
      t.connect({ ...(wire === 'fetch' ? { fetch: globalThis.fetch } : {}), ...options });

    it("runs the client's, then the call's, around every attempt; the token exchange passes the client's only", async () => {
      t.server.on(SIMS, page([sim]));
      const seen: string[] = [];
      const named =
        (name: string): Middleware =>
        async (request, next, context) => {
          seen.push(`${name} ${context.operation} ${context.route} #${context.attempt}`);
          request.headers.set(`x-${name}`, 'yes');
          return next(request);
        };
      const client = await connect({ middleware: [named('outer'), named('inner')] });
      await client.sims.list({}, { middleware: [named('call')] });
      expect(seen).toEqual([
        'outer auth.token POST /api/v1.1/auth/token #1',
        'inner auth.token POST /api/v1.1/auth/token #1',
        'outer sims.list GET /api/v1.1/sims #1',
        'inner sims.list GET /api/v1.1/sims #1',
        'call sims.list GET /api/v1.1/sims #1',
      ]);
      const [sent] = t.server.requestsTo(SIMS);
      expect(sent?.headers).toMatchObject({ 'x-outer': 'yes', 'x-inner': 'yes', 'x-call': 'yes', authorization: 'Bearer tok-1-a8f3c2e1d4b5' });
      expect(t.server.requestsTo(TOKEN_ROUTE)[0]?.headers['x-call']).toBeUndefined();
    });

    it('builds each attempt afresh: what a middleware changed on one never leaks into the next', async () => {
      t.server.on(SIMS, [fail(503, 'INTERNAL_ERROR'), fail(503, 'INTERNAL_ERROR'), page([sim])]);
      const addQuery: Middleware = async (request, next) => {
        request.url += (request.url.includes('?') ? '&' : '?') + 'tenant=acme';
        request.headers.append('x-trail', 'a');
        return next(request);
      };
      const client = await connect({ middleware: [addQuery] });
      await settleOnFakeClock(client.sims.list({ pageSize: 5 }));
      const sent = t.server.requestsTo(SIMS);
      expect(sent).toHaveLength(3);
      for (const request of sent) {
        expect(request.path).toBe('/api/v1.1/sims?pageSize=5&tenant=acme');
        expect(request.headers['x-trail']).toBe('a');
      }
    });

    it('sees the refreshed bearer on the replay after a 401, and cannot change the key a retry carries', async () => {
      t.server.on(SMS, [fail(401, 'UNAUTHORIZED'), fail(503, 'INTERNAL_ERROR'), ok({ message: 'queued' })]);
      const bearers: Array<string | null> = [];
      const keys: Array<string | undefined> = [];
      const meddling: Middleware = async (request, next, context) => {
        if (context.operation !== 'sms.send') return next(request);
        bearers.push(request.headers.get('authorization'));
        keys.push(context.idempotencyKey);
        request.headers.set('idempotency-key', `mine-${context.attempt}`);
        return next(request);
      };
      const client = await connect({ middleware: [meddling] });
      await settleOnFakeClock(client.sms.send(sms, { idempotencyKey: 'order-42' }));
      expect(bearers).toEqual(['Bearer tok-1-a8f3c2e1d4b5', 'Bearer tok-2-a8f3c2e1d4b5', 'Bearer tok-2-a8f3c2e1d4b5']);
      expect(keys).toEqual(['order-42', 'order-42', 'order-42']);
      expect(t.server.requestsTo(SMS).map((request) => request.headers['idempotency-key'])).toEqual(['order-42', 'order-42', 'order-42']);
    });

    it('gives a body that can be read any number of times, and a response the client can still read', async () => {
      t.server.on(SMS, ok({ message: 'queued 2' }));
      const reader: Middleware = async (request, next) => {
        expect(JSON.parse(request.body ?? '')).toEqual(sms);
        expect(JSON.parse(request.body ?? '')).toEqual(sms);
        const response = await next(request);
        expect(await response.json()).toEqual({ success: true, data: { message: 'queued 2' } });
        return response;
      };
      const client = await connect();
      await expect(client.sms.send(sms, { middleware: [reader] })).resolves.toEqual({ message: 'queued 2' });
      expect(JSON.parse(t.server.requestsTo(SMS)[0]?.body ?? '')).toEqual(sms);
    });

    it("hands next()'s answer out as a WHATWG Response: read once, cloned before, its headers the server's", async () => {
      t.server.on(SIMS, page([sim]));
      const checks: Middleware = async (request, next) => {
        const response = await next(request);
        expect(response).toBeInstanceOf(Response);
        expect(response.status).toBe(200);
        expect(response.ok).toBe(true);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const copy = response.clone();
        expect(response.bodyUsed).toBe(false);
        const text = await response.text();
        expect(response.bodyUsed).toBe(true);
        await expect(response.text()).rejects.toBeInstanceOf(TypeError);
        expect(() => response.clone()).toThrow(TypeError);
        expect(await new Response(copy.body).text()).toBe(text);
        expect(JSON.parse(text)).toMatchObject({ success: true, data: [sim] });
        // A Response to the platform too: its tag, util.inspect, and as the init of another.
        expect(Object.prototype.toString.call(response)).toBe('[object Response]');
        expect(inspect(response)).toMatch(/status: 200/);
        const rebuilt = new Response(text, response);
        expect([rebuilt.status, rebuilt.headers.get('content-type')]).toEqual([200, response.headers.get('content-type')]);
        return response;
      };
      const client = await connect();
      await expect(client.sims.list({}, { middleware: [checks] })).resolves.toMatchObject({ data: [sim] });
    });

    it("passes on an answer whose status the platform's Response cannot hold, as the client without middleware reads it", async () => {
      t.server.on(SIMS, { ...fail(503, 'INTERNAL_ERROR'), status: 600 });
      const seen: number[] = [];
      const reader: Middleware = async (request, next) => {
        const response = await next(request);
        seen.push(response.status);
        await response.text();
        return response;
      };
      const client = await connect({ maxRetries: 0 });
      const without = await client.sims.list().catch((caught: unknown) => caught);
      const through = await client.sims.list({}, { middleware: [reader] }).catch((caught: unknown) => caught);
      expect(seen).toEqual([600]);
      expect(through).toBeInstanceOf((without as object).constructor);
      expect(through).toMatchObject({ status: 600, code: (without as { code: string }).code });
    });

    it('handles a response of its own exactly as the server’s: envelope, typed errors, retries, rate-limit headers', async () => {
      const answers = [
        new Response(JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'stubbed' } }), { status: 503 }),
        new Response(envelope([sim], { page: 1, pageSize: 20, total: 1, totalPages: 1 }), {
          status: 200,
          headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '30' },
        }),
      ];
      const stub: Middleware = async (_request, _next, context) => {
        const answer = answers[context.attempt - 1];
        if (!answer) throw new Error('no more stubbed answers');
        return answer;
      };
      const client = await connect();
      const result = await settleOnFakeClock(client.sims.list({}, { middleware: [stub] }).withResponse());
      expect(result.data.data).toEqual([sim]);
      expect(result.response.rateLimit).toEqual({ limit: 120, remaining: 7, resetSeconds: 30 });
      expect(t.server.requestsTo(SIMS)).toHaveLength(0);

      const notFound: Middleware = async () =>
        new Response(JSON.stringify({ success: false, error: { code: 'SIM_NOT_FOUND', message: 'stubbed' } }), { status: 404 });
      const error = await client.sims.retrieveSubscription('8961000000000000009', { middleware: [notFound] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ code: 'SIM_NOT_FOUND', status: 404 });

      const throttled: Middleware = async () =>
        new Response(JSON.stringify({ success: false, error: { code: 'RATE_LIMITED', message: 'slow' } }), {
          status: 429,
          headers: { 'retry-after': '2' },
        });
      const limited = await settleOnFakeClock(client.sims.list({}, { middleware: [throttled], maxRetries: 1 })).catch((caught: unknown) => caught);
      expect(limited).toBeInstanceOf(RateLimitError);
      expect((limited as RateLimitError).retryAfterSeconds).toBe(2);
    });

    it('ends the call with a middleware’s own error, unretried, even on a read; an error thrown while handling another is not swallowed', async () => {
      t.server.on(SIMS, fail(503, 'INTERNAL_ERROR'));
      const own = new Error('tenant unknown');
      let attempts = 0;
      const refusing: Middleware = async () => {
        attempts += 1;
        throw own;
      };
      const client = await connect();
      await expect(client.sims.list({}, { middleware: [refusing] })).rejects.toBe(own);
      expect(attempts).toBe(1);

      // next() fails (the connection is cut mid-answer): a middleware that throws its own error
      // instead ends the call with it; one that swallows the failure and answers nothing is refused.
      t.server.on(SIMS, { status: 200, raw: envelope([sim]), cutAfterBytes: 5 });
      const translated = new Error('upstream is down');
      const translating: Middleware = async (request, next) => {
        try {
          return await next(request);
        } catch (error) {
          expect(error).toBeInstanceOf(ConnectionError);
          throw translated;
        }
      };
      await expect(client.sims.list({}, { middleware: [translating] })).rejects.toBe(translated);
      const swallowing: Middleware = async function swallowing(request, next) {
        try {
          return await next(request);
        } catch {
          return undefined as never;
        }
      };
      const refused = await client.sims.list({}, { middleware: [swallowing] }).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(TypeError);
      expect((refused as Error).message).toMatch(/^middleware swallowing\d* \(number 1\) of sims\.list resolved undefined, not a Response$/);
      expect(t.server.requestsTo(SIMS)).toHaveLength(2);
    });

    it('retries a RetryableError by the rules of a failed connection: a write that was sent is not retried', async () => {
      const ORDER = 'POST /api/v1.1/orders';
      const order = (middleware: Middleware[]) => client.request({ method: 'POST', path: '/api/v1.1/orders', body: { item: 1 }, middleware });
      t.server.on(SIMS, page([sim]));
      t.server.on(ORDER, ok({ placed: true }));
      let first = true;
      const flaky: Middleware = async (request, next) => {
        if (first) {
          first = false;
          throw new RetryableError('cache cold, try again');
        }
        return next(request);
      };
      const client = await connect();
      await expect(settleOnFakeClock(client.sims.list({}, { middleware: [flaky] }))).resolves.toMatchObject({ data: [sim] });

      // Not sent on: even a write no idempotency covers is retried.
      first = true;
      await expect(settleOnFakeClock(order([flaky]))).resolves.toEqual({ placed: true });
      expect(t.server.requestsTo(ORDER)).toHaveLength(1);

      // Sent on, then failed: that write may have been applied, and is not sent again.
      const afterSending: Middleware = async (request, next) => {
        await next(request);
        throw new RetryableError('lost the answer');
      };
      const error = await settleOnFakeClock(order([afterSending])).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RetryableError);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ code: 'RETRYABLE', requestNotSent: false, mayHaveSucceeded: true });
      expect(t.server.requestsTo(ORDER)).toHaveLength(2);
    });

    it("holds a middleware to the attempt's timeout, aborting its signal", async () => {
      let signal: AbortSignal | undefined;
      const hanging: Middleware = (_request, _next, context) => {
        signal = context.signal;
        return new Promise<Response>(() => undefined);
      };
      const client = await connect({ maxRetries: 0 });
      const error = await settleOnFakeClock(client.sims.list({}, { middleware: [hanging], timeoutMs: 200 })).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(signal?.aborted).toBe(true);
    });

    it('refuses a request next() cannot send, unsent, naming what is wrong with it', async () => {
      t.server.on(SIMS, page([sim]));
      const client = await connect({ maxRetries: 0 });
      const relative: Middleware = (request, next) => next({ ...request, url: '/api/v1.1/sims' });
      const headerless: Middleware = (request, next) => next({ ...request, headers: null as never });
      const spread: Middleware = (request, next) => next({ ...request });
      await expect(client.sims.list({}, { middleware: [relative] })).rejects.toThrow(
        /next\(\) a request whose url is not an absolute http\(s\) URL \(got "\/api\/v1\.1\/sims"\)/,
      );
      await expect(client.sims.list({}, { middleware: [headerless] })).rejects.toThrow(
        /next\(\) a request whose headers are not a Headers \(got null\)/,
      );
      expect(t.server.requestsTo(SIMS)).toHaveLength(0);
      // A spread copies the headers with the rest: sent as the attempt's own, bearer included.
      await expect(client.sims.list({}, { middleware: [spread] })).resolves.toMatchObject({ data: [sim] });
      expect(t.server.requestsTo(SIMS)[0]?.headers['authorization']).toMatch(/^Bearer /);
    });

    it('refuses a middleware option that is not an array of functions, before anything is sent', async () => {
      const client = await connect();
      const error = await client.sims.list({}, { middleware: [42 as never] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as Error).message).toMatch(/middleware: must be an array of middleware functions \(item 0 is 42\)/);
      expect(() => new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, middleware: 'log' as never })).toThrow(
        /invalid client option middleware: must be an array of middleware functions/,
      );
      expect(t.server.requests).toHaveLength(0);
    });
  });
}

describe('middleware and the caller’s signal', () => {
  it("sees next() reject with the caller's abort reason when the caller aborts the request in flight", async () => {
    let caught: unknown;
    const watching: Middleware = async (request, next) => {
      try {
        return await next(request);
      } catch (error) {
        caught = error;
        throw error;
      }
    };
    t.server.on(SIMS, { hang: true });
    const client = await t.connect();
    const controller = new AbortController();
    const call = client.sims.list({}, { middleware: [watching], signal: controller.signal }).catch((failure: unknown) => failure);
    while (t.server.requestsTo(SIMS).length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const reason = new Error('the caller gave up');
    controller.abort(reason);
    expect(await call).toBe(reason);
    while (caught === undefined) await new Promise((resolve) => setImmediate(resolve));
    expect(caught).toBe(reason);
  });
});

describe('middleware and the client’s end', () => {
  it('is cut by destroy() with a ClientClosedError while it waits', async () => {
    let reached: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (reached = resolve));
    const waiting: Middleware = (_request, _next, context: MiddlewareContext) =>
      new Promise<Response>((_resolve, reject) => {
        reached();
        context.signal.addEventListener('abort', () => reject(context.signal.reason as Error));
      });
    t.server.on(SIMS, page([sim]));
    const client = await t.connect();
    const call = client.sims.list({}, { middleware: [waiting] }).catch((caught: unknown) => caught);
    await inside;
    await client.destroy();
    expect(await call).toBeInstanceOf(ClientClosedError);
  });
});

describe('a next() called after its attempt', () => {
  it('is refused, unsent: a middleware sends within its attempt, never after it answered', async () => {
    let keep: ((request: Parameters<Middleware>[0]) => Promise<Response>) | undefined;
    const answersFirst: Middleware = async (request, next) => {
      keep = () => next(request);
      return Response.json({ success: true, data: [], meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } });
    };
    t.server.on(SIMS, page([sim]));
    const client = await t.connect();
    expect((await client.sims.list({}, { middleware: [answersFirst] })).data).toEqual([]);
    await expect(keep?.({} as never)).rejects.toThrow(/next\(\) was called after the attempt of sims\.list had ended/);
    expect(t.server.requestsTo(SIMS)).toHaveLength(0);
  });
});
