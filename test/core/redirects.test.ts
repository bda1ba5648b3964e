import { Agent, interceptors } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartnerClient, RedirectError } from '../../src/index.js';
import { ok, startTestServer, TOKEN_ROUTE, type TestServer } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 2 });

/** The server a redirect points to: it records whatever reaches it, and must see nothing. */
let elsewhere: TestServer;
beforeEach(async () => {
  elsewhere = await startTestServer();
  elsewhere.on('POST /steal', ok({ stolen: true }));
  elsewhere.on('GET /steal', ok({ stolen: true }));
});
afterEach(async () => {
  await elsewhere.close();
});

const LOCATION_SECRET = 'sig=loc_secret_7d2f9a';

function expectRefused(error: unknown, status: number): void {
  expect(error).toBeInstanceOf(RedirectError);
  const refused = error as RedirectError;
  expect(refused.status).toBe(status);
  expect(refused.code).toBe('REDIRECT_NOT_FOLLOWED');
  expect(refused.targetOrigin).toBe(elsewhere.url);
  expect(refused.message).toContain(String(status));
  expect(refused.message).toContain(elsewhere.url);
  // The target's origin only: never the path or query of Location, nor a credential.
  for (const text of [refused.message, JSON.stringify(refused), refused.stack ?? '']) {
    expect(text).not.toContain(LOCATION_SECRET);
    expect(text).not.toContain('/steal');
    expect(text).not.toContain(SECRET);
  }
}

const transports = [
  ['undici dispatch', {}],
  ['fetch option', { fetch: globalThis.fetch }],
] as const;

describe.each(transports)('redirects are never followed (%s)', (_name, transportOptions) => {
  it.each([307, 308])('refuses a %i on the token exchange: nothing reaches the target, nothing is retried', async (status) => {
    t.server.on(TOKEN_ROUTE, { status, headers: { location: `${elsewhere.url}/steal?${LOCATION_SECRET}` }, json: { success: true, data: {} } });
    t.server.on('GET /api/v1.1/thing', ok(1));
    const client = await t.connect(transportOptions);
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expectRefused(error, status);
    expect(elsewhere.requests).toHaveLength(0);
    expect(t.server.exchanges).toBe(1);
    expect(t.server.requestsTo('GET /api/v1.1/thing')).toHaveLength(0);
  });

  it('refuses a 302 on an authenticated GET: default headers are not forwarded, the other 2xx is not data', async () => {
    t.server.on('GET /api/v1.1/thing', {
      status: 302,
      headers: { location: `${elsewhere.url}/steal?${LOCATION_SECRET}` },
      json: { success: true, data: 'moved' },
    });
    const client = await t.connect({ ...transportOptions, defaultHeaders: { 'x-api-key': 'xk_default_header_91c3' } });
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expectRefused(error, 302);
    expect(elsewhere.requests).toHaveLength(0);
    expect(t.server.requestsTo('GET /api/v1.1/thing')).toHaveLength(1);
  });

  it('names the configured origin for a relative Location', async () => {
    t.server.on('GET /api/v1.1/thing', { status: 301, headers: { location: `/elsewhere?${LOCATION_SECRET}` } });
    const client = await t.connect(transportOptions);
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).targetOrigin).toBe(t.server.url);
    expect((error as RedirectError).message).not.toContain(LOCATION_SECRET);
  });
});

describe('a caller-given dispatcher', () => {
  it('does not follow a redirect even with a redirect interceptor composed in', async () => {
    t.server.on('GET /api/v1.1/thing', { status: 302, headers: { location: `${elsewhere.url}/steal` } });
    const agent = new Agent();
    try {
      const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 3 }));
      const client = t.track(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, dispatcher }));
      const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RedirectError);
      expect((error as RedirectError).status).toBe(302);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });
});

describe('fetch implementations that do not honour redirect: manual', () => {
  it('refuses the answer of a fetch that followed the redirect anyway', async () => {
    t.server.on('GET /api/v1.1/thing', { status: 302, headers: { location: `${elsewhere.url}/steal` } });
    const following: typeof fetch = (input, init) => globalThis.fetch(input, { ...init, redirect: 'follow' });
    const client = t.track(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, fetch: following }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).status).toBe(0);
    expect((error as RedirectError).targetOrigin).toBe(elsewhere.url);
  });

  it('refuses an opaque redirect (status 0, no headers), as a browser fetch returns it', async () => {
    const opaque = { type: 'opaqueredirect', status: 0, redirected: false, url: '', body: null, headers: new Headers() } as unknown as Response;
    const browserLike: typeof fetch = async (input, init) => {
      const url = String(input);
      return url.endsWith('/auth/token') ? globalThis.fetch(input, init) : opaque;
    };
    const client = t.track(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, fetch: browserLike }));
    const error = await client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ status: 0, targetOrigin: undefined });
  });
});
