import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ConfigurationError, PartnerClient } from '../../src/index.js';
import { fail, ok, startTestServer, TOKEN_ROUTE, type TestServer, tokenReply } from '../helpers/server.js';
import { clientFor, KEY, SECRET } from '../helpers/server-client.js';

const PING = 'GET /api/v1.1/ping';
const ping = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/ping' });

let server: TestServer;
let client: PartnerClient | undefined;

beforeEach(async () => {
  server = await startTestServer();
  server.on(PING, ok({ pong: true }));
});

afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  await client?.close();
  client = undefined;
  await server.close();
});

describe('token exchange', () => {
  it('exchanges the key and secret once for 50 concurrent first calls', async () => {
    client = clientFor(server);
    await Promise.all(Array.from({ length: 50 }, () => ping(client as PartnerClient)));
    expect(server.exchanges).toBe(1);
    const exchange = server.requestsTo(TOKEN_ROUTE)[0];
    expect(JSON.parse(exchange?.body ?? '{}')).toEqual({ key: KEY, secret: SECRET });
    expect(exchange?.headers['authorization']).toBeUndefined();
    const bearers = new Set(server.requestsTo(PING).map((request) => request.headers['authorization']));
    expect([...bearers]).toEqual(['Bearer tok-1-a8f3c2e1d4b5']);
  });

  it('reuses the cached token for later calls', async () => {
    client = clientFor(server);
    await ping(client);
    await ping(client);
    await ping(client);
    expect(server.exchanges).toBe(1);
  });

  it('exchanges again shortly before expires_at, with no refresh grant', async () => {
    client = clientFor(server);
    await ping(client);
    vi.useFakeTimers({ toFake: ['Date'] });
    // 3600 s token, 60 s margin: at 3545 s it is still fresh, at 3541 s + 60 s it is not.
    vi.setSystemTime(Date.now() + 3_530_000);
    await ping(client);
    expect(server.exchanges).toBe(1);
    vi.setSystemTime(Date.now() + 20_000);
    await ping(client);
    expect(server.exchanges).toBe(2);
    expect(server.requestsTo(PING).at(-1)?.headers['authorization']).toBe('Bearer tok-2-a8f3c2e1d4b5');
  });

  it('uses 10% of the lifetime as the margin for short-lived tokens', async () => {
    server.on(TOKEN_ROUTE, tokenReply(100));
    client = clientFor(server);
    await ping(client);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 89_000);
    await ping(client);
    expect(server.exchanges).toBe(1);
    vi.setSystemTime(Date.now() + 2_000);
    await ping(client);
    expect(server.exchanges).toBe(2);
  });
});

describe('401 handling', () => {
  it('re-authenticates once on 401 and replays the call once', async () => {
    server.on(PING, [fail(401, 'UNAUTHORIZED'), ok({ pong: true })]);
    client = clientFor(server);
    await expect(ping(client)).resolves.toEqual({ pong: true });
    expect(server.exchanges).toBe(2);
    expect(server.requestsTo(PING).map((request) => request.headers['authorization'])).toEqual([
      'Bearer tok-1-a8f3c2e1d4b5',
      'Bearer tok-2-a8f3c2e1d4b5',
    ]);
  });

  it('re-authenticates once on 401, then gives up with AuthenticationError', async () => {
    server.on(PING, fail(401, 'UNAUTHORIZED', { message: 'token expired' }));
    client = clientFor(server);
    const error = await ping(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', route: PING });
    expect(server.requestsTo(PING)).toHaveLength(2);
    expect(server.exchanges).toBe(2);
  });

  it('treats a 401 from the exchange itself as final', async () => {
    server.on(TOKEN_ROUTE, fail(401, 'UNAUTHORIZED', { message: 'wrong key or secret' }));
    client = clientFor(server);
    await expect(ping(client)).rejects.toBeInstanceOf(AuthenticationError);
    expect(server.exchanges).toBe(1);
    expect(server.requestsTo(PING)).toHaveLength(0);
  });

  it('shares one re-authentication among concurrent calls refused with the same token', async () => {
    let refused = 0;
    server.on(PING, (request) => {
      if (request.headers['authorization'] === 'Bearer tok-1-a8f3c2e1d4b5') {
        refused += 1;
        return fail(401, 'UNAUTHORIZED');
      }
      return ok({ pong: true });
    });
    client = clientFor(server);
    await Promise.all(Array.from({ length: 10 }, () => ping(client as PartnerClient)));
    expect(refused).toBe(10);
    expect(server.exchanges).toBe(2);
  });
});

describe('unauthenticated routes and configuration', () => {
  it('sends no bearer on auth: false routes and needs no key or secret', async () => {
    vi.stubEnv('PARTNER_API_KEY', '');
    vi.stubEnv('PARTNER_API_SECRET', '');
    server.on('GET /api/v3/transactions/tx_1', ok({ transactionId: 'tx_1', status: 'PENDING' }));
    client = new PartnerClient({ baseUrl: server.url });
    await client.request({ method: 'GET', path: '/api/v3/transactions/tx_1', auth: false });
    expect(server.exchanges).toBe(0);
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('reports missing credentials at the first call that needs them, not at construction', async () => {
    vi.stubEnv('PARTNER_API_KEY', '');
    vi.stubEnv('PARTNER_API_SECRET', '');
    client = new PartnerClient({ baseUrl: server.url });
    const error = await ping(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String((error as Error).message)).toMatch(/PARTNER_API_KEY/);
    expect(server.requests).toHaveLength(0);
  });

  it('reports a missing base URL at the first call', async () => {
    vi.stubEnv('PARTNER_API_BASE_URL', '');
    client = new PartnerClient({ key: KEY, secret: SECRET });
    await expect(ping(client)).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('reads the base URL, key and secret from the environment', async () => {
    vi.stubEnv('PARTNER_API_BASE_URL', server.url);
    vi.stubEnv('PARTNER_API_KEY', KEY);
    vi.stubEnv('PARTNER_API_SECRET', SECRET);
    client = new PartnerClient();
    await expect(ping(client)).resolves.toEqual({ pong: true });
    expect(JSON.parse(server.requestsTo(TOKEN_ROUTE)[0]?.body ?? '{}')).toEqual({ key: KEY, secret: SECRET });
  });
});

describe('exchange failures', () => {
  it('does not multiply retries when the exchange itself keeps failing', async () => {
    server.on(TOKEN_ROUTE, fail(503, 'INTERNAL_ERROR'));
    client = clientFor(server, { maxRetries: 1 });
    await expect(ping(client)).rejects.toMatchObject({ status: 503 });
    expect(server.exchanges).toBe(2);
    expect(server.requestsTo(PING)).toHaveLength(0);
  });
});
