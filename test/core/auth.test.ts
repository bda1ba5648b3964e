import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ConfigurationError, PartnerClient } from '../../src/index.js';
import { fail, ok, TOKEN_ROUTE, tokenReply } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const PING = 'GET /api/v1.1/ping';
const ping = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/ping' });

const t = useTestServer();

beforeEach(() => {
  t.server.on(PING, ok({ pong: true }));
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe('token exchange', () => {
  it('exchanges the key and secret once for 50 concurrent first calls', async () => {
    const client = t.client;
    await Promise.all(Array.from({ length: 50 }, () => ping(client)));
    expect(t.server.exchanges).toBe(1);
    const exchange = t.server.requestsTo(TOKEN_ROUTE)[0];
    expect(JSON.parse(exchange?.body ?? '{}')).toEqual({ key: KEY, secret: SECRET });
    expect(exchange?.headers['authorization']).toBeUndefined();
    const bearers = new Set(t.server.requestsTo(PING).map((request) => request.headers['authorization']));
    expect([...bearers]).toEqual(['Bearer tok-1-a8f3c2e1d4b5']);
  });

  it('reuses the cached token for later calls', async () => {
    const client = t.client;
    await ping(client);
    await ping(client);
    await ping(client);
    expect(t.server.exchanges).toBe(1);
  });

  it('exchanges again shortly before expires_at, with no refresh grant', async () => {
    const client = t.client;
    await ping(client);
    vi.useFakeTimers({ toFake: ['Date'] });
    // 3600 s token, 60 s margin: at 3545 s it is still fresh, at 3541 s + 60 s it is not.
    vi.setSystemTime(Date.now() + 3_530_000);
    await ping(client);
    expect(t.server.exchanges).toBe(1);
    vi.setSystemTime(Date.now() + 20_000);
    await ping(client);
    expect(t.server.exchanges).toBe(2);
    expect(t.server.requestsTo(PING).at(-1)?.headers['authorization']).toBe('Bearer tok-2-a8f3c2e1d4b5');
  });

  it('goes by expires_in, so a clock far ahead of the server does not exchange on every call', async () => {
    // The server's expires_at looks two hours old to a client whose clock runs three hours fast.
    t.server.on(TOKEN_ROUTE, {
      status: 200,
      json: {
        success: true,
        data: {
          access_token: 'tok-skew-a8f3c2e1d4b5',
          token_type: 'Bearer',
          expires_in: 3600,
          expires_at: new Date(Date.now() - 7_200_000).toISOString(),
        },
      },
    });
    const client = t.client;
    await ping(client);
    await ping(client);
    await ping(client);
    expect(t.server.exchanges).toBe(1);
  });

  it('uses 10% of the lifetime as the margin for short-lived tokens', async () => {
    t.server.on(TOKEN_ROUTE, tokenReply(100));
    const client = t.client;
    await ping(client);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 89_000);
    await ping(client);
    expect(t.server.exchanges).toBe(1);
    vi.setSystemTime(Date.now() + 2_000);
    await ping(client);
    expect(t.server.exchanges).toBe(2);
  });
});

describe('token lifetime grammar', () => {
  const tokenWith = (expiresIn: number, expiresAt: string) => ({
    status: 200,
    json: { success: true, data: { access_token: 'tok-odd-a8f3c2e1d4b5', token_type: 'Bearer', expires_in: expiresIn, expires_at: expiresAt } },
  });

  it.each([0, -60, 1.5, 1e300])('falls back to expires_at when expires_in is %s (not a positive safe integer)', async (expiresIn) => {
    t.server.on(TOKEN_ROUTE, tokenWith(expiresIn, new Date(Date.now() + 3_600_000).toISOString()));
    const client = t.client;
    await ping(client);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3_000_000);
    await ping(client);
    expect(t.server.exchanges).toBe(1);
    vi.setSystemTime(Date.now() + 600_000);
    await ping(client);
    expect(t.server.exchanges).toBe(2);
  });

  const nextYear = new Date().getUTCFullYear() + 1;
  it.each([
    'soon',
    '',
    '2024-13-45T99:99:99Z',
    '1700000000',
    new Date(Date.now() - 60_000).toISOString(),
    // Not a day of the calendar, or not an hour of the day: Date.parse() would roll each over to a later instant.
    `${nextYear}-02-30T00:00:00.000Z`,
    `${nextYear}-06-31T00:00:00.000Z`,
    `${nextYear}-06-01T24:00:00.000Z`,
  ])('assumes a 60 s lifetime when neither expires_in nor expires_at (%o) is usable, never exchanging on every call', async (expiresAt) => {
    t.server.on(TOKEN_ROUTE, tokenWith(0, expiresAt));
    const client = t.client;
    await ping(client);
    await ping(client);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 50_000);
    await ping(client);
    expect(t.server.exchanges).toBe(1);
    vi.setSystemTime(Date.now() + 10_000);
    await ping(client);
    expect(t.server.exchanges).toBe(2);
  });
});

describe('401 handling', () => {
  it('re-authenticates once on 401 and replays the call once', async () => {
    t.server.on(PING, [fail(401, 'UNAUTHORIZED'), ok({ pong: true })]);
    const client = t.client;
    await expect(ping(client)).resolves.toEqual({ pong: true });
    expect(t.server.exchanges).toBe(2);
    expect(t.server.requestsTo(PING).map((request) => request.headers['authorization'])).toEqual([
      'Bearer tok-1-a8f3c2e1d4b5',
      'Bearer tok-2-a8f3c2e1d4b5',
    ]);
  });

  it('re-authenticates once on 401, then gives up with AuthenticationError', async () => {
    t.server.on(PING, fail(401, 'UNAUTHORIZED', { message: 'token expired' }));
    const client = t.client;
    const error = await ping(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', route: PING });
    expect(t.server.requestsTo(PING)).toHaveLength(2);
    expect(t.server.exchanges).toBe(2);
  });

  it('treats a 401 from the exchange itself as final', async () => {
    t.server.on(TOKEN_ROUTE, fail(401, 'UNAUTHORIZED', { message: 'wrong key or secret' }));
    const client = t.client;
    await expect(ping(client)).rejects.toBeInstanceOf(AuthenticationError);
    expect(t.server.exchanges).toBe(1);
    expect(t.server.requestsTo(PING)).toHaveLength(0);
  });

  it('shares one re-authentication among concurrent calls refused with the same token', async () => {
    let refused = 0;
    t.server.on(PING, (request) => {
      if (request.headers['authorization'] === 'Bearer tok-1-a8f3c2e1d4b5') {
        refused += 1;
        return fail(401, 'UNAUTHORIZED');
      }
      return ok({ pong: true });
    });
    const client = t.client;
    await Promise.all(Array.from({ length: 10 }, () => ping(client)));
    expect(refused).toBe(10);
    expect(t.server.exchanges).toBe(2);
  });
});

describe('unauthenticated routes and configuration', () => {
  it('sends no bearer on auth: false routes and needs no key or secret', async () => {
    vi.stubEnv('PARTNER_API_KEY', '');
    vi.stubEnv('PARTNER_API_SECRET', '');
    t.server.on('GET /api/v3/transactions/tx_1', ok({ transactionId: 'tx_1', status: 'PENDING' }));
    const client = t.track(new PartnerClient({ baseUrl: t.server.url }));
    await client.request({ method: 'GET', path: '/api/v3/transactions/tx_1', auth: false });
    expect(t.server.exchanges).toBe(0);
    expect(t.server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('reports missing credentials at the first call that needs them, not at construction', async () => {
    vi.stubEnv('PARTNER_API_KEY', '');
    vi.stubEnv('PARTNER_API_SECRET', '');
    const client = t.track(new PartnerClient({ baseUrl: t.server.url }));
    const error = await ping(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String((error as Error).message)).toMatch(/PARTNER_API_KEY/);
    expect(t.server.requests).toHaveLength(0);
  });

  it.each([
    ['both', '', '', 'key', 'key and secret are required: pass them to the client ({ key, secret }) or set PARTNER_API_KEY and PARTNER_API_SECRET'],
    ['the key', '', SECRET, 'key', 'key is required: pass it to the client ({ key }) or set PARTNER_API_KEY (the secret is set)'],
    ['the secret', KEY, '', 'secret', 'secret is required: pass it to the client ({ secret }) or set PARTNER_API_SECRET (the key is set)'],
  ])('names the credential missing (%s), in the message and as error.option', async (_, key, secret, option, message) => {
    vi.stubEnv('PARTNER_API_KEY', key);
    vi.stubEnv('PARTNER_API_SECRET', '');
    const client = t.track(new PartnerClient({ baseUrl: t.server.url, ...(secret ? { secret } : {}) }));
    const error = await ping(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ option, message });
    expect(t.server.requests).toHaveLength(0);
  });

  it('reports a missing base URL at the first call', async () => {
    vi.stubEnv('PARTNER_API_BASE_URL', '');
    const client = t.track(new PartnerClient({ key: KEY, secret: SECRET }));
    await expect(ping(client)).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('reads the base URL, key and secret from the environment', async () => {
    vi.stubEnv('PARTNER_API_BASE_URL', t.server.url);
    vi.stubEnv('PARTNER_API_KEY', KEY);
    vi.stubEnv('PARTNER_API_SECRET', SECRET);
    const client = t.track(new PartnerClient());
    await expect(ping(client)).resolves.toEqual({ pong: true });
    expect(JSON.parse(t.server.requestsTo(TOKEN_ROUTE)[0]?.body ?? '{}')).toEqual({ key: KEY, secret: SECRET });
  });
});

describe('exchange failures', () => {
  it('does not multiply retries when the exchange itself keeps failing', async () => {
    t.server.on(TOKEN_ROUTE, fail(503, 'INTERNAL_ERROR'));
    const client = await t.connect({ maxRetries: 1 });
    await expect(ping(client)).rejects.toMatchObject({ status: 503 });
    expect(t.server.exchanges).toBe(2);
    expect(t.server.requestsTo(PING)).toHaveLength(0);
  });
});
