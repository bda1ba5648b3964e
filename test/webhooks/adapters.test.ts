import { request } from 'node:http';
import { inspect } from 'node:util';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createDeduplicator,
  createFetchHandler,
  createNodeHandler,
  signPayload,
  webhookMiddleware,
  type WebhookEvent,
  type WebhookHandlerOptions,
  WebhookHandlerError,
} from '../../src/webhooks/index.js';
import { listen, type Loopback } from '../helpers/server.js';
import { fetchBridge, postSigned, secret } from './helpers.js';

type Factory = (options: WebhookHandlerOptions) => Promise<Loopback>;

const receivers: Record<string, Factory> = {
  'node http handler': (options) => listen(createNodeHandler(options)),
  'express middleware, no body parser': (options) => {
    const app = express();
    app.post('/', webhookMiddleware(options));
    return listen(app);
  },
  'express middleware after express.raw on the route': (options) => {
    const app = express();
    app.post('/', express.raw({ type: 'application/json' }), webhookMiddleware(options));
    return listen(app);
  },
  'express middleware after express.json with a verify hook keeping rawBody': (options) => {
    const app = express();
    app.use(
      express.json({
        verify: (req, _res, buf) => {
          (req as typeof req & { rawBody?: Buffer }).rawBody = buf;
        },
      }),
    );
    app.post('/', webhookMiddleware(options));
    return listen(app);
  },
  'fetch handler served through node http': (options) => listen(fetchBridge(createFetchHandler(options))),
};

let open: Loopback | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function start(factory: Factory, options: Partial<WebhookHandlerOptions> & Pick<WebhookHandlerOptions, 'onEvent'>): Promise<string> {
  open = await factory({ secret, ...options });
  return `${open.url}/`;
}

describe.each(Object.entries(receivers))('%s', (_name, factory) => {
  it('answers 200 and hands over the typed event for a good signature', async () => {
    const events: WebhookEvent[] = [];
    const url = await start(factory, { onEvent: (event) => void events.push(event) });
    const body = JSON.stringify({ id: 'vqt_1', event: 'voice.test.completed', score: 4 });
    const answer = await postSigned(url, body, { headers: { 'x-service-delivery': 'dlv_1' } });
    expect(answer).toEqual({ status: 200, body: { received: true } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'voice.test.completed', id: 'vqt_1', delivery: { deliveryId: 'dlv_1' } });
  });

  it('answers 400 with only the reason for a bad signature, and never calls onEvent', async () => {
    const onEvent = vi.fn();
    const onError = vi.fn();
    const url = await start(factory, { onEvent, onError });
    const body = JSON.stringify({ event: 'webhook.test' });
    const answer = await postSigned(url, body, { signWith: 'whsec_wrong' });
    expect(answer).toEqual({ status: 400, body: { error: 'invalid_webhook', reason: 'signature_mismatch' } });
    expect(await postSigned(url, body, { signature: '' })).toMatchObject({ status: 400, body: { reason: 'missing_header' } });
    expect(onEvent).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledTimes(2);
  });

  it('answers 500 when onEvent throws, so the service retries', async () => {
    const onError = vi.fn();
    const url = await start(factory, {
      onEvent: () => {
        throw new Error('database down');
      },
      onError,
    });
    const answer = await postSigned(url, JSON.stringify({ event: 'webhook.test' }));
    expect(answer).toEqual({ status: 500, body: { error: 'handler_failed' } });
    expect(onError).toHaveBeenCalledTimes(1);
    const [reported] = onError.mock.calls[0] as [WebhookHandlerError];
    expect(reported).toBeInstanceOf(WebhookHandlerError);
    expect(reported).toMatchObject({ stage: 'handler', code: 'WEBHOOK_HANDLER_FAILED', message: 'webhook onEvent failed: database down' });
    expect((reported.cause as Error).message).toBe('database down');
    expect(reported.event?.type).toBe('webhook.test');
  });

  it('waits for an async onEvent before answering', async () => {
    let finished = false;
    const url = await start(factory, {
      onEvent: async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        finished = true;
      },
    });
    await postSigned(url, JSON.stringify({ event: 'webhook.test' }));
    expect(finished).toBe(true);
  });

  it('answers 200 at once with awaitHandler false and reports a later failure to onError', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const failed = new Promise<unknown>((resolve) => {
      void start(factory, {
        awaitHandler: false,
        onEvent: async () => {
          await gate;
          throw new Error('late failure');
        },
        onError: resolve,
      }).then(async (url) => {
        expect(await postSigned(url, JSON.stringify({ event: 'webhook.test' }))).toMatchObject({ status: 200 });
        release();
      });
    });
    expect(await failed).toMatchObject({ stage: 'handler', cause: expect.objectContaining({ message: 'late failure' }) });
  });

  it('acknowledges a repeated delivery as duplicate without calling onEvent twice', async () => {
    const onEvent = vi.fn();
    const url = await start(factory, { onEvent, dedupe: createDeduplicator() });
    const body = JSON.stringify({ id: 'vqt_dup', event: 'voice.test.completed' });
    expect(await postSigned(url, body)).toEqual({ status: 200, body: { received: true } });
    expect(await postSigned(url, body)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it('processes the retry of an event whose handler failed, despite dedupe', async () => {
    let calls = 0;
    const url = await start(factory, {
      dedupe: createDeduplicator(),
      onError: () => undefined,
      onEvent: () => {
        calls += 1;
        if (calls === 1) throw new Error('first attempt fails');
      },
    });
    const body = JSON.stringify({ id: 'vqt_retry', event: 'voice.test.completed' });
    expect((await postSigned(url, body)).status).toBe(500);
    expect((await postSigned(url, body)).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('accepts a body signed during a rotation with either secret', async () => {
    const onEvent = vi.fn();
    open = await factory({ secret: ['whsec_next', secret], onEvent });
    const body = JSON.stringify({ event: 'webhook.test' });
    expect((await postSigned(`${open.url}/`, body, { signWith: 'whsec_next' })).status).toBe(200);
    expect((await postSigned(`${open.url}/`, body)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
  });

  it('reads a secret function on every delivery, sync or async, so a rotation needs no new handler', async () => {
    const onEvent = vi.fn();
    let current: string | string[] = secret;
    const reads: string[] = [];
    open = await factory({
      secret: async () => {
        reads.push('read');
        return current;
      },
      onEvent,
    });
    const body = JSON.stringify({ event: 'webhook.test' });
    expect((await postSigned(`${open.url}/`, body)).status).toBe(200);
    current = ['whsec_next', secret];
    expect((await postSigned(`${open.url}/`, body, { signWith: 'whsec_next' })).status).toBe(200);
    current = 'whsec_next';
    expect((await postSigned(`${open.url}/`, body)).body).toEqual({ error: 'invalid_webhook', reason: 'signature_mismatch' });
    expect(reads).toHaveLength(3);
    expect(onEvent).toHaveBeenCalledTimes(2);
    await open.close();
    open = await factory({ secret: () => secret, onEvent });
    expect((await postSigned(`${open.url}/`, body)).status).toBe(200);
  });

  it('answers 500 secret_unavailable, leaking nothing, when the secret function throws, rejects or returns no secret', async () => {
    const leaky = `secret manager said: token=${secret}`;
    const sources: Array<WebhookHandlerOptions['secret']> = [
      () => {
        throw new Error(leaky);
      },
      () => Promise.reject(new Error(leaky)),
      async () => '',
      () => [] as string[],
    ];
    for (const source of sources) {
      const onEvent = vi.fn();
      const errors: unknown[] = [];
      open = await factory({ secret: source, onEvent, onError: (error) => errors.push(error) });
      const response = await fetch(`${open.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signPayload('{}', secret) },
        body: '{}',
      });
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ error: 'secret_unavailable' });
      expect(text).not.toContain(secret);
      expect(onEvent).not.toHaveBeenCalled();
      expect(errors).toEqual([expect.objectContaining({ name: 'WebhookSignatureError', reason: 'invalid_secret' })]);
      expect(JSON.stringify(errors[0])).not.toContain(secret);
      expect(inspect(errors[0])).not.toContain(secret);
      await open.close();
      open = undefined;
    }
  });
});

describe('node and fetch receivers', () => {
  it.each([
    ['node', (options: WebhookHandlerOptions) => listen(createNodeHandler(options))],
    ['fetch', (options: WebhookHandlerOptions) => listen(fetchBridge(createFetchHandler(options)))],
  ] as const)('%s: answers 413 above maxBodyBytes and 405 to GET', async (_name, factory) => {
    const onEvent = vi.fn();
    open = await factory({ secret, onEvent, maxBodyBytes: 64 });
    const big = JSON.stringify({ event: 'webhook.test', pad: 'x'.repeat(200) });
    expect((await postSigned(`${open.url}/`, big)).status).toBe(413);
    const get = await fetch(`${open.url}/`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(onEvent).not.toHaveBeenCalled();
  });
});

// A global express.json() refuses a body that is not JSON itself (Express's own 400 page), before the middleware runs.
const readingRawBytes = Object.entries(receivers).filter(([name]) => !name.includes('express.json'));

describe.each(readingRawBytes)('%s', (_name, factory) => {
  it('answers 400 invalid_payload for an authentic body that is not JSON, and never calls onEvent', async () => {
    const onEvent = vi.fn();
    const url = await start(factory, { onEvent, onError: () => undefined });
    expect(await postSigned(url, 'not json')).toEqual({ status: 400, body: { error: 'invalid_webhook', reason: 'invalid_payload' } });
    expect(onEvent).not.toHaveBeenCalled();
  });
});

describe('making a receiver', () => {
  const factories = { createNodeHandler, webhookMiddleware, createFetchHandler };
  it.each(Object.keys(factories))('%s refuses a missing or empty secret at once, not at the first delivery', (name) => {
    const make = factories[name as keyof typeof factories] as (options: WebhookHandlerOptions) => unknown;
    for (const bad of [undefined, '', [], ['']]) {
      expect(() => make({ secret: bad as never, onEvent: () => undefined })).toThrow(expect.objectContaining({ reason: 'invalid_secret' }));
    }
    expect(() => make({ secret } as never)).toThrow(/onEvent/);
  });

  it.each(Object.keys(factories))('%s refuses a maxBodyBytes that is not a positive integer of bytes, naming it', (name) => {
    const make = factories[name as keyof typeof factories] as (options: WebhookHandlerOptions) => unknown;
    for (const bad of [Number.NaN, '1024', 0, -1, 1.5, Infinity, null, 2 ** 53]) {
      expect(() => make({ secret, onEvent: () => undefined, maxBodyBytes: bad as never }), String(bad)).toThrow(
        expect.objectContaining({
          name: 'ConfigurationError',
          option: 'maxBodyBytes',
          message: expect.stringMatching(/^invalid webhook handler option maxBodyBytes: must be an integer from 1 to 9007199254740991 \(got .+\)$/),
        }),
      );
    }
  });

  it.each(Object.keys(factories))('%s takes a secret function without calling it before the first delivery', (name) => {
    const make = factories[name as keyof typeof factories] as (options: WebhookHandlerOptions) => unknown;
    const source = vi.fn(() => secret);
    make({ secret: source, onEvent: () => undefined });
    expect(source).not.toHaveBeenCalled();
  });
});

describe('body size limit without a Content-Length', () => {
  it('node: answers 413 to a chunked body that grows past maxBodyBytes', async () => {
    const onEvent = vi.fn();
    open = await listen(createNodeHandler({ secret, onEvent, maxBodyBytes: 64 }));
    const body = JSON.stringify({ event: 'webhook.test', pad: 'x'.repeat(200) });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${open?.url}/`, { method: 'POST', headers: { 'x-service-signature': signPayload(body, secret) } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      expect(req.getHeader('content-length')).toBeUndefined();
      for (let i = 0; i < body.length; i += 32) req.write(body.slice(i, i + 32));
      req.end();
    });
    expect(status).toBe(413);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('fetch: answers 413 to a streamed body that grows past maxBodyBytes, and stops reading it', async () => {
    const onEvent = vi.fn();
    const handler = createFetchHandler({ secret, onEvent, maxBodyBytes: 64 });
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new TextEncoder().encode('x'.repeat(40)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await handler(
      new Request('https://receiver.example/', {
        method: 'POST',
        headers: { 'x-service-signature': 't=1,v1=00' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(10);
    expect(onEvent).not.toHaveBeenCalled();
  });
});

describe('express middleware after a parser that set req.body without reading', () => {
  it('reads the request itself, as after Express 4 body-parser skipped a content type', async () => {
    const onEvent = vi.fn();
    const app = express();
    app.use((req, _res, next) => {
      // body-parser 1.x does this before checking the content type, and reads nothing.
      (req as typeof req & { body: unknown }).body ??= {};
      next();
    });
    app.post('/', webhookMiddleware({ secret, onEvent }));
    open = await listen(app);
    const answer = await postSigned(`${open.url}/`, JSON.stringify({ event: 'webhook.test' }));
    expect(answer).toEqual({ status: 200, body: { received: true } });
    expect(onEvent).toHaveBeenCalledTimes(1);
  });
});

describe('express middleware after a plain express.json()', () => {
  it('answers 500 explaining how to keep the raw body, and calls no handler', async () => {
    const onEvent = vi.fn();
    const app = express();
    app.use(express.json());
    app.post('/', webhookMiddleware({ secret, onEvent, onError: () => undefined }));
    open = await listen(app);
    const answer = await postSigned(`${open.url}/`, JSON.stringify({ event: 'webhook.test' }));
    expect(answer.status).toBe(500);
    expect(answer.body['error']).toBe('raw_body_unavailable');
    expect(String(answer.body['message'])).toContain('express.raw({ type: "application/json" })');
    expect(String(answer.body['message'])).toContain('req.rawBody = buf');
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('still reads the body itself when express.json skipped a non-JSON content type', async () => {
    const onEvent = vi.fn();
    const app = express();
    app.use(express.json());
    app.post('/', webhookMiddleware({ secret, onEvent }));
    open = await listen(app);
    const body = JSON.stringify({ event: 'webhook.test' });
    const answer = await postSigned(`${open.url}/`, body, { headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });
});

describe('a Content-Length that is not digits', () => {
  it.each(['1e9', '0x7fffffff', '+99999999', '99999999.0'])(
    'fetch: reads the body (%s is no length) and judges it by its bytes',
    async (declared) => {
      const onEvent = vi.fn();
      const handler = createFetchHandler({ secret, onEvent, maxBodyBytes: 1024 });
      const body = JSON.stringify({ event: 'sms.received', text: 'hello' });
      const response = await handler(
        new Request('https://receiver.example/', {
          method: 'POST',
          headers: { 'x-service-signature': signPayload(body, secret), 'content-length': declared },
          body,
        }),
      );
      expect(response.status).toBe(200);
      expect(onEvent).toHaveBeenCalledTimes(1);
    },
  );
});

describe('createFetchHandler called directly', () => {
  it('verifies a new Request and returns a Response', async () => {
    const events: WebhookEvent[] = [];
    const handler = createFetchHandler({ secret, onEvent: (event) => void events.push(event) });
    const body = JSON.stringify({ event: 'sms.received', from: '+15550001', text: 'hello' });
    const good = await handler(
      new Request('https://receiver.example/webhooks', {
        method: 'POST',
        headers: { 'X-Service-Signature': signPayload(body, secret) },
        body,
      }),
    );
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ received: true });
    expect(events[0]).toMatchObject({ type: 'sms', name: 'sms.received', data: { text: 'hello' } });

    const bad = await handler(
      new Request('https://receiver.example/webhooks', {
        method: 'POST',
        headers: { 'X-Service-Signature': signPayload(body, secret, { timestamp: 1 }) },
        body,
      }),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'invalid_webhook', reason: 'timestamp_out_of_tolerance' });
  });
});
