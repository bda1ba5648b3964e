import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionError } from '../../src/index.js';
import { VERSION } from '../../src/core/version.js';
import { ok } from '../helpers/server.js';
import { clientFor, useTestServer } from '../helpers/server-client.js';

const t = useTestServer();

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('request line and headers', () => {
  it('sends an encoded path exactly as given, %2E%2E included', async () => {
    const client = t.client;
    await client.request({ method: 'GET', path: '/api/v1.1/sims/%2E%2E/subscription' }).catch(() => undefined);
    expect(t.server.requests.at(-1)?.path).toBe('/api/v1.1/sims/%2E%2E/subscription');
  });

  it('serialises the query like URLSearchParams and leaves out undefined and null', async () => {
    t.server.on('GET /api/v1.1/sims', ok([]));
    const client = t.client;
    await client.request({
      method: 'GET',
      path: '/api/v1.1/sims',
      query: { page: 2, pageSize: 20, search: 'a b&c', status: undefined, assignedTo: null, active: true },
    });
    expect(t.server.requestsTo('GET /api/v1.1/sims')[0]?.path).toBe('/api/v1.1/sims?page=2&pageSize=20&search=a+b%26c&active=true');
  });

  it('keeps a path prefix of the base URL', async () => {
    t.server.on('GET /partner/api/v1.1/ping', ok(1));
    t.server.on('POST /partner/api/v1.1/auth/token', (request, count) => {
      void request;
      return {
        status: 200,
        json: {
          success: true,
          data: {
            access_token: `tok-${count}-prefix99`,
            token_type: 'Bearer',
            expires_in: 3600,
            expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          },
        },
      };
    });
    const client = await t.connect({ baseUrl: `${t.server.url}/partner/` });
    await expect(client.request({ method: 'GET', path: '/api/v1.1/ping' })).resolves.toBe(1);
  });

  it('names the SDK, its version and the runtime in User-Agent, and sends JSON bodies', async () => {
    t.server.on('POST /api/v1.1/sms', ok({}));
    const client = t.client;
    await client.request({ method: 'POST', path: '/api/v1.1/sms', body: { text: 'hi' }, headers: { 'X-Trace': 't1' } });
    const sent = t.server.requestsTo('POST /api/v1.1/sms')[0];
    expect(sent?.headers['user-agent']).toBe(`mobile-partner-sdk/${VERSION} node/${process.version}`);
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers['x-trace']).toBe('t1');
    expect(sent?.body).toBe('{"text":"hi"}');
  });

  it('keeps the version constant equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('does not let caller headers replace Authorization', async () => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    const client = t.client;
    await client.request({ method: 'GET', path: '/api/v1.1/ping', headers: { Authorization: 'Bearer forged' } });
    expect(t.server.requestsTo('GET /api/v1.1/ping')[0]?.headers['authorization']).toBe('Bearer tok-1-a8f3c2e1d4b5');
  });
});

describe('built-in undici wire', () => {
  it('reuses one keep-alive connection for sequential calls', async () => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    const client = t.client;
    await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    const warm = t.server.connections;
    for (let index = 0; index < 5; index++) await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    expect(t.server.connections).toBe(warm);
  });

  it('sends through a caller-given dispatcher', async () => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    let dispatched = 0;
    class CountingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        dispatched += 1;
        return super.dispatch(options, handler);
      }
    }
    const dispatcher = new CountingAgent();
    const client = await t.connect({ dispatcher });
    await client.request({ method: 'GET', path: '/api/v1.1/ping' });
    expect(dispatched).toBe(2);
    await client.close();
    // The caller owns its dispatcher: close() leaves it usable.
    expect(dispatcher.closed).toBe(false);
    await dispatcher.close();
  });

  it.each([
    ['goes through HTTP_PROXY when it is set', '', 2],
    ['bypasses HTTP_PROXY for a host NO_PROXY names', '127.0.0.1', 0],
  ])('%s', async (_behaviour, noProxy, proxiedRequests) => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    const target = new URL(t.server.url);
    let proxied = 0;
    const proxy = createHttpServer((incoming, outgoing) => {
      // Plain-http requests reach a forward proxy in absolute form.
      proxied += 1;
      const url = new URL(incoming.url ?? '/', t.server.url);
      const forward = httpRequest(
        { host: target.hostname, port: target.port, method: incoming.method, path: url.pathname + url.search, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forward);
    });
    proxy.on('connect', (incoming, socket: Socket, head: Buffer) => {
      proxied += 1;
      const upstream = connect(Number(target.port), target.hostname, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      void incoming;
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    vi.stubEnv('HTTP_PROXY', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    vi.stubEnv('NO_PROXY', noProxy);
    try {
      await expect(t.client.request({ method: 'GET', path: '/api/v1.1/ping' })).resolves.toBe(1);
      // The token exchange and the call.
      expect(proxied).toBe(proxiedRequests);
    } finally {
      await t.client.close();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('reports a refused connection as ConnectionError with requestNotSent', async () => {
    const url = t.server.url;
    await t.server.close();
    const client = t.track(clientFor({ ...t.server, url }, { maxRetries: 0 }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/ping', auth: false }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'CONNECTION_ERROR', requestNotSent: true });
  });
});

describe('fetch option', () => {
  it('sends every request through the given fetch instead of undici', async () => {
    t.server.on('GET /api/v1.1/ping', ok({ pong: true }));
    const seen: string[] = [];
    const fetchSpy: typeof fetch = (input, init) => {
      seen.push(`${init?.method} ${String(input)}`);
      return fetch(input, init);
    };
    const client = await t.connect({ fetch: fetchSpy });
    await expect(client.request({ method: 'GET', path: '/api/v1.1/ping', query: { a: 1 } })).resolves.toEqual({ pong: true });
    expect(seen).toEqual([`POST ${t.server.url}/api/v1.1/auth/token`, `GET ${t.server.url}/api/v1.1/ping?a=1`]);
  });
});

describe('request bodies', () => {
  it('refuses a body that is not serialisable as JSON before sending anything', async () => {
    const client = t.client;
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const pending = client.request({ method: 'POST', path: '/api/v1.1/sms', body: cyclic, auth: false });
    await expect(pending).rejects.toMatchObject({ name: 'RequestValidationError', issues: [{ path: 'body' }] });
    expect(t.server.requests).toHaveLength(0);
  });
});
