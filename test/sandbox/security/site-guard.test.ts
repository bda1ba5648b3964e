/**
 * A web page must not drive or read the sandbox: every state-changing control route (taken from
 * the router, so a route added later is covered) refuses what a page of another origin can send,
 * and every route refuses a Host that is not the sandbox's own (DNS rebinding). Requests go over
 * real loopback HTTP with node:http, which sends the forged headers a browser would.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../../src/sandbox/handler.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';

interface Sent {
  status: number;
  body: any;
}

/** One request with exactly these headers (Host included) to the sandbox's loopback port. */
function send(sandbox: SandboxHandle, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: sandbox.port,
        method,
        path,
        setHost: headers.host === undefined,
        headers: body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // the inspector page is HTML
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A concrete path for a route template (`/_sandbox/deliveries/:deliveryId/redeliver`). */
const concrete = (template: string): string => template.replace(/:[A-Za-z]+/g, 'x');

/** Bodies a state-changing route would accept: the ones a page would try to send. */
const BODIES: Record<string, string> = {
  '/_sandbox/force': JSON.stringify({ method: 'GET', path: '/api/v1.1/plans', status: 503, times: 5 }),
  '/_sandbox/time': JSON.stringify({ advanceMs: 86_400_000 * 365 }),
  '/_sandbox/account': JSON.stringify({ apiAccess: false }),
  '/_sandbox/voice-quality/webhooks': JSON.stringify({ url: 'http://127.0.0.1:9/collect' }),
};

const PROBE = '/api/v1.1/sims/probe/subscription';

/** What the sandbox looks like from the control API: a page's refused request must leave it as it was. */
async function fingerprint(sandbox: SandboxHandle): Promise<unknown> {
  const read = async (path: string): Promise<unknown> => (await send(sandbox, 'GET', path)).body;
  // The token probe is a logged API request of its own: the log is compared without it.
  const tokenLive = (await send(sandbox, 'GET', PROBE, { authorization: `Bearer ${token}` })).status;
  const stats = (await read('/_sandbox/stats')) as { counters: Record<string, number> };
  const { requests } = (await read('/_sandbox/requests')) as { requests: Array<{ id: number; path: string }> };
  return {
    time: await read('/_sandbox/time'),
    account: await read('/_sandbox/account'),
    force: await read('/_sandbox/force'),
    counters: { ...stats.counters, 'auth.token': undefined },
    requests: requests.filter((entry) => entry.path !== PROBE).map((entry) => entry.id),
    voiceQualityWebhooks: await read('/_sandbox/voice-quality/webhooks'),
    deliveries: await read('/_sandbox/deliveries'),
    tokenLive,
  };
}

let sandbox: SandboxHandle;
let token: string;
let port: number;

beforeAll(async () => {
  // A stopped clock, so the fingerprint's time only moves when a control route moves it.
  sandbox = await startSandbox({ timeScale: 1e-9, now: '2030-01-01T00:00:00Z', rateLimit: false });
  port = sandbox.port;
  const answer = await send(
    sandbox,
    'POST',
    '/api/v1.1/auth/token',
    { 'content-type': 'application/json' },
    JSON.stringify({ key: sandbox.key, secret: sandbox.secret }),
  );
  token = answer.body.data.access_token as string;
});
afterAll(async () => {
  await sandbox.close();
});

const stateChanging = (): Array<{ method: string; path: string }> =>
  routesOf(sandbox).filter((route) => route.path.startsWith('/_sandbox') && route.method !== 'GET' && route.method !== 'HEAD');

describe('state-changing control routes refuse what a page of another origin can send', () => {
  it('finds the state-changing control routes in the router', () => {
    const paths = stateChanging().map((route) => `${route.method} ${route.path}`);
    // The routes a page would most like to drive are among them; any route added later is too.
    for (const expected of [
      'POST /_sandbox/force',
      'DELETE /_sandbox/force',
      'DELETE /_sandbox/requests',
      'POST /_sandbox/time',
      'POST /_sandbox/tokens/revoke',
      'POST /_sandbox/account',
      'POST /_sandbox/reset',
      'POST /_sandbox/events/sms',
      'POST /_sandbox/events/voice',
      'POST /_sandbox/voice-quality/webhooks',
      'POST /_sandbox/voice-quality/tests',
      'POST /_sandbox/voice-stream',
      'POST /_sandbox/deliveries/:deliveryId/redeliver',
    ]) {
      expect(paths).toContain(expected);
    }
  });

  const other = (): string => `http://127.0.0.1:${port + 1}`;
  const shapes: Array<{ name: string; status: number; headers: () => Record<string, string>; body?: 'json' | 'none' }> = [
    {
      name: 'a cross-site form post (Sec-Fetch-Site: cross-site, Origin, form type)',
      status: 403,
      headers: () => ({
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        origin: 'http://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
      }),
    },
    {
      name: 'a cross-site text/plain fetch',
      status: 403,
      headers: () => ({
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'no-cors',
        origin: 'http://evil.example',
        'content-type': 'text/plain;charset=UTF-8',
      }),
    },
    {
      name: 'a page on another port of loopback (same-site, other origin), even with JSON',
      status: 403,
      headers: () => ({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors', origin: other(), 'content-type': 'application/json' }),
    },
    { name: 'an Origin of another port alone', status: 403, headers: () => ({ origin: other(), 'content-type': 'application/json' }) },
    {
      name: 'an Origin of another scheme-less name',
      status: 403,
      headers: () => ({ origin: `http://localhost.evil.example:${port}`, 'content-type': 'application/json' }),
    },
    {
      name: 'Origin: null (a sandboxed frame, a file:// page)',
      status: 403,
      headers: () => ({ origin: 'null', 'content-type': 'application/json' }),
    },
    { name: 'an unknown Sec-Fetch-Site', status: 403, headers: () => ({ 'sec-fetch-site': 'cross-origin', 'content-type': 'application/json' }) },
    { name: 'a text/plain body without browser headers', status: 415, headers: () => ({ 'content-type': 'text/plain' }) },
    { name: 'a form body without browser headers', status: 415, headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }) },
    { name: 'a multipart body', status: 415, headers: () => ({ 'content-type': 'multipart/form-data; boundary=x' }) },
    { name: 'a JSON-looking type that is not JSON', status: 415, headers: () => ({ 'content-type': 'application/jsonp' }) },
    { name: 'a body without a Content-Type (a Blob without type)', status: 415, headers: () => ({}) },
    { name: 'an empty form post', status: 415, headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }), body: 'none' },
    {
      name: 'a Host that is not the sandbox (DNS rebinding)',
      status: 403,
      headers: () => ({ host: `evil.example:${port}`, 'content-type': 'application/json' }),
    },
  ];

  for (const shape of shapes) {
    it(`refuses ${shape.name} on every route, changing nothing`, async () => {
      const before = await fingerprint(sandbox);
      for (const route of stateChanging()) {
        const path = concrete(route.path);
        const body = shape.body === 'none' ? undefined : (BODIES[route.path] ?? '{}');
        const answer = await send(sandbox, route.method, path, shape.headers(), body);
        expect({ route: `${route.method} ${route.path}`, status: answer.status }).toEqual({
          route: `${route.method} ${route.path}`,
          status: shape.status,
        });
        expect(typeof answer.body.error).toBe('string');
      }
      expect(await fingerprint(sandbox)).toEqual(before);
    });
  }

  it('names why in the refusal', async () => {
    const crossSite = await send(sandbox, 'POST', '/_sandbox/reset', { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' });
    expect(crossSite.body.error).toMatch(/another origin \(Sec-Fetch-Site: cross-site\)/);
    const textBody = await send(sandbox, 'POST', '/_sandbox/account', { 'content-type': 'text/plain' }, '{"apiAccess":false}');
    expect(textBody.body.error).toBe('control requests take Content-Type: application/json, not text/plain');
  });
});

describe('what a control request may be', () => {
  afterEach(async () => {
    await send(sandbox, 'POST', '/_sandbox/reset');
  });

  it('takes JSON from a client that is no browser (no Origin, no Sec-Fetch-Site), and a body-less POST', async () => {
    expect(
      (await send(sandbox, 'POST', '/_sandbox/account', { 'content-type': 'application/json; charset=utf-8' }, '{"customerMissing":true}')).body,
    ).toEqual({
      apiAccess: true,
      customerMissing: true,
    });
    expect((await send(sandbox, 'POST', '/_sandbox/reset')).body).toEqual({ reset: true });
    expect((await send(sandbox, 'POST', '/_sandbox/reset', { 'content-length': '0' })).body).toEqual({ reset: true });
  });

  it("takes the sandbox's own page (same-origin) under each loopback name, and a request the user made (Sec-Fetch-Site: none)", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LocalHost.:${port}`]) {
      const answer = await send(
        sandbox,
        'POST',
        '/_sandbox/time',
        { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
        '{"advanceMs":1}',
      );
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
    expect((await send(sandbox, 'POST', '/_sandbox/reset', { 'sec-fetch-site': 'none' })).status).toBe(200);
  });

  it('lets a link open a control GET (a navigation), but refuses a page loading one as a subresource', async () => {
    const navigation = await send(sandbox, 'GET', '/_sandbox/', {
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
    });
    expect(navigation.status).toBe(200);
    for (const route of routesOf(sandbox).filter((r) => r.path.startsWith('/_sandbox') && r.method === 'GET')) {
      const path = concrete(route.path);
      const script = await send(sandbox, 'GET', path, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' });
      const feed = await send(sandbox, 'GET', path, {
        'sec-fetch-site': 'same-site',
        'sec-fetch-mode': 'cors',
        origin: `http://localhost:${port + 1}`,
      });
      expect({ path, script: script.status, feed: feed.status }).toEqual({ path, script: 403, feed: 403 });
    }
  });
});

describe('the Host check (DNS rebinding)', () => {
  const bad = [
    'evil.example',
    `evil.example:${String(0)}`,
    'localhost.evil.example',
    '127.0.0.1.nip.io',
    'localhost@evil.example',
    'sandbox',
    '0.0.0.0',
    '127.0.0.2',
    '',
  ];

  it('refuses a foreign Host on every route: control reads, the page, the feed, the token route, API reads', async () => {
    const reads = routesOf(sandbox)
      .filter((r) => r.method === 'GET')
      .map((r) => concrete(r.path));
    for (const host of bad) {
      for (const path of [...reads, '/nowhere']) {
        const answer = await send(sandbox, 'GET', path, { host: host === '' ? '' : `${host}:${port}`, authorization: `Bearer ${token}` });
        expect({ host, path, status: answer.status }).toEqual({ host, path, status: 403 });
      }
      const exchange = await send(
        sandbox,
        'POST',
        '/api/v1.1/auth/token',
        { host: `${host}:${port}`, 'content-type': 'application/json' },
        JSON.stringify({ key: sandbox.key, secret: sandbox.secret }),
      );
      expect(exchange.status).toBe(403);
      expect(JSON.stringify(exchange.body)).not.toContain('access_token');
    }
  });

  it('answers API routes with the error envelope and control routes with plain JSON, naming how to allow the host', async () => {
    const api = await send(sandbox, 'GET', '/api/v1.1/plans', { host: `evil.example:${port}`, authorization: `Bearer ${token}` });
    expect(api.body).toEqual({
      success: false,
      error: {
        code: 'FORBIDDEN',
        message: `Host "evil.example:${port}" is not a name this sandbox answers to (localhost, 127.0.0.1, [::1]); add it to the allowedHosts option (--allowed-host) to allow it`,
      },
    });
    const control = await send(sandbox, 'GET', '/_sandbox/requests', { host: `evil.example:${port}` });
    expect(control.body).toEqual({ error: expect.stringMatching(/^Host "evil\.example:\d+" is not a name this sandbox answers to/) });
  });

  it('takes the loopback names with or without a port, in any case', async () => {
    for (const host of [
      '127.0.0.1',
      `127.0.0.1:${port}`,
      'localhost',
      `LOCALHOST:${port}`,
      `localhost.:${port}`,
      `[::1]:${port}`,
      '[0:0:0:0:0:0:0:1]',
    ]) {
      expect({ host, status: (await send(sandbox, 'GET', '/_sandbox/time', { host })).status }).toEqual({ host, status: 200 });
    }
  });

  it('takes the names of allowedHosts: exact, or a domain and its subdomains with a leading dot', async () => {
    const own = await startSandbox({ allowedHosts: ['Dev.Example.Test', '.corp.test'] });
    try {
      for (const host of ['dev.example.test', 'corp.test', 'a.corp.test', 'b.a.corp.test']) {
        expect({ host, status: (await send(own, 'GET', '/_sandbox/time', { host: `${host}:${own.port}` })).status }).toEqual({ host, status: 200 });
      }
      for (const host of ['example.test', 'evilcorp.test', 'corp.test.evil', 'x.dev.example.test']) {
        expect({ host, status: (await send(own, 'GET', '/_sandbox/time', { host: `${host}:${own.port}` })).status }).toEqual({ host, status: 403 });
      }
    } finally {
      await own.close();
    }
  });

  it('refuses an allowedHosts entry that is not a host name, naming it', async () => {
    for (const entry of ['http://dev.test', 'dev.test:4010', 'dev.test/x', 'user@dev.test', '', '.', ' dev.test', 'dev.test ', 42]) {
      await expect(startSandbox({ allowedHosts: ['ok.test', entry as string] })).rejects.toThrow(/allowedHosts\[1\]/);
    }
  });

  it('does not check the Host of a sandbox answered in process (msw, a test fetch)', async () => {
    const { createSandbox } = await import('../../../src/sandbox/index.js');
    const inProcess = createSandbox();
    try {
      const answer = await inProcess.handler(new Request('https://partner.test/_sandbox/time', { headers: { host: 'partner.test' } }));
      expect(answer.status).toBe(200);
      const refused = await inProcess.handler(
        new Request('https://partner.test/_sandbox/account', {
          method: 'POST',
          headers: { origin: 'http://evil.example' },
          body: '{"apiAccess":false}',
        }),
      );
      expect(refused.status).toBe(403);
      const account = (await (await inProcess.handler(new Request('https://partner.test/_sandbox/account'))).json()) as { apiAccess: boolean };
      expect(account.apiAccess).toBe(true);
    } finally {
      await inProcess.close();
    }
  });
});
