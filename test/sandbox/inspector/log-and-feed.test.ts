/**
 * The server side of the inspector over loopback: the request log as a bounded ring buffer with
 * the fields the page shows, depth-bounded masking, the SSE feed and the control routes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type LoggedRequest, type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { REQUEST_LOG_CAPACITY, LOG_BODY_LIMIT_BYTES } from '../../../src/sandbox/middleware/request-log.js';
import { FEED_MAX_QUEUED_BYTES, FEED_MAX_WATCHERS, InspectorFeed } from '../../../src/sandbox/inspector/feed.js';

let sandbox: SandboxHandle;
let token: string;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function control<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const last = (): LoggedRequest => {
  const entries = sandbox.requests();
  return entries[entries.length - 1] as LoggedRequest;
};

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 3, rateLimitWindowMs: 60_000 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  sandbox.reset();
  const res = await fetch(`${sandbox.url}/api/v1.1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: sandbox.key, secret: sandbox.secret }),
  });
  token = ((await res.json()) as { data: { access_token: string } }).data.access_token;
});

describe('request log entries', () => {
  it('mask the token in the answer of the exchange as well as the credentials of the request', () => {
    const exchange = sandbox.requests()[0] as LoggedRequest;
    expect(exchange.body).toEqual({ key: '[REDACTED]', secret: '[REDACTED]' });
    expect(exchange.response?.body).toMatchObject({ success: true, data: { access_token: '[REDACTED]', token_type: 'Bearer' } });
    const logged = JSON.stringify(sandbox.requests());
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(sandbox.secret);
  });

  it('record latency, the limiter window and what is left in it', async () => {
    await call('GET', '/api/v1.1/sims?pageSize=1');
    expect(last()).toMatchObject({ status: 200, rateLimit: { window: 'account', limit: 120, remaining: 118, retryAfterSeconds: null } });
    expect(last().latencyMs).toBeGreaterThan(0);
    await call('POST', '/api/v1.1/sms', { fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+61400000000', text: 'hi' });
    expect(last().rateLimit).toMatchObject({ window: 'POST /api/v1.1/sms', limit: 30, remaining: 29 });
    expect(last().response?.headers['x-ratelimit-limit']).toBe('30');
  });

  it.each([
    ['1e1', null],
    ['0x10', null],
    ['+5', null],
    ['5.0', null],
    ['in 30 s', 30],
  ] as const)('read a forced Retry-After of %s as a client reads it: %s', async (value, seconds) => {
    // An HTTP-date is the other form of Retry-After (RFC 9110 10.2.3): seconds until then.
    const header = value === 'in 30 s' ? new Date(Date.now() + 30_000).toUTCString() : value;
    sandbox.force({ method: 'GET', path: '/api/v1.1/sims', status: 429, headers: { 'retry-after': header } });
    await call('GET', '/api/v1.1/sims?pageSize=1');
    expect(last().response?.headers['retry-after']).toBe(header);
    const logged = last().rateLimit?.retryAfterSeconds ?? null;
    if (seconds === null) expect(logged).toBeNull();
    else expect(logged).toSatisfy((n: number) => n >= seconds - 1 && n <= seconds + 1);
  });

  it('record the idempotency key and whether the answer was a replay', async () => {
    const body = { fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+61400000000', text: 'once' };
    await call('POST', '/api/v1.1/sms', body, { 'idempotency-key': 'key-1' });
    expect(last().idempotency).toEqual({ key: 'key-1', replayed: false });
    await call('POST', '/api/v1.1/sms', body, { 'idempotency-key': 'key-1' });
    expect(last().idempotency).toEqual({ key: 'key-1', replayed: true });
  });

  it('mark the request a forced rule answered, and only that one', async () => {
    const rule = await control<{ id: string }>('POST', '/_sandbox/force', { method: 'GET', path: '/api/v1.1/sims', status: 503, times: 1 });
    await call('GET', '/api/v1.1/plans');
    expect(last().forced).toBeNull();
    await call('GET', '/api/v1.1/sims');
    expect(last()).toMatchObject({ status: 503, forced: { ruleId: rule.body.id, status: 503, reset: false } });
    await call('GET', '/api/v1.1/sims');
    expect(last()).toMatchObject({ status: 200, forced: null });
  });

  it('record a reset socket as status 0 without an answer', async () => {
    await control('POST', '/_sandbox/force', { path: '/api/v1.1/sims', reset: true });
    await expect(call('GET', '/api/v1.1/sims')).rejects.toThrow();
    await expect.poll(() => last().status).toBe(0);
    expect(last().response).toBeNull();
    expect(last().forced).toMatchObject({ reset: true });
  });

  it('keep a 100k-deep body bounded, masked and servable instead of recursing', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await call('POST', '/api/v1.1/sms', deep);
    expect(res.status).toBe(400);
    // Refused at the parsing edge before anything walks it: the log keeps the note, not the body.
    expect(last().body).toMatch(/^\[not parsed: nested deeper than \d+\]$/);
    // A body the parser accepts (under its depth limit) is copied to 32 levels and no further.
    await call('POST', '/nowhere', `${'['.repeat(50)}${']'.repeat(50)}`);
    expect(JSON.stringify(last().body)).toContain('nested deeper than 32 levels');
    // A secret below the depth bound is replaced with its whole branch.
    let nested: unknown = { secret: 'sk_deep_secret' };
    for (let i = 0; i < 40; i++) nested = { a: nested };
    await call('POST', '/nowhere', nested);
    expect(JSON.stringify(last().body)).not.toContain('sk_deep_secret');
    const listed = await control<{ requests: unknown[] }>('GET', '/_sandbox/requests');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain('sk_deep_secret');
  });

  it('keep a "__proto__" member of a body as a member', async () => {
    await call('POST', '/nowhere', '{"__proto__":{"polluted":true},"password":"p"}');
    expect(JSON.stringify(last().body)).toBe('{"__proto__":{"polluted":true},"password":"[REDACTED]"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('cap bodies at LOG_BODY_LIMIT_BYTES with a size note', async () => {
    const text = 'x'.repeat(LOG_BODY_LIMIT_BYTES + 10);
    await call('POST', '/nowhere', { text });
    expect(last().body).toMatch(/^\[\d+ bytes, over the log's 16384-byte limit\]$/);
  });

  it('are found by id under /_sandbox/requests/:id', async () => {
    await call('GET', '/api/v1.1/sims?pageSize=1');
    const found = await control<LoggedRequest>('GET', `/_sandbox/requests/${last().id}`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual(last());
    expect((await control('GET', '/_sandbox/requests/999999')).status).toBe(404);
    expect((await control('GET', '/_sandbox/requests/abc')).status).toBe(404);
  });

  it.each(['+{id}', '0{id}', '{id}.0', '0x{hex}', '{id}e0', '%20{id}', '{id}%20'])('find no entry by the id spelt %s', async (spelling) => {
    await call('GET', '/api/v1.1/sims?pageSize=1');
    const { id } = last();
    const path = `/_sandbox/requests/${spelling.replace('{id}', String(id)).replace('{hex}', id.toString(16))}`;
    const answer = await control<{ error: string }>('GET', path);
    expect([answer.status, answer.body.error], path).toEqual([
      404,
      expect.stringMatching(/^request ".+" \(an id is an integer from 1 to \d+, in decimal digits, no sign or leading zero\) not found$/),
    ]);
  });
});

describe('the request log ring buffer', () => {
  it(`keeps the newest ${REQUEST_LOG_CAPACITY} entries and counts every request`, async () => {
    const s = createSandbox({ rateLimit: false });
    try {
      const total = REQUEST_LOG_CAPACITY + 25;
      for (let i = 0; i < total; i++) await s.handler(new Request(`http://sandbox.test/nowhere/${i}`));
      const entries = s.requests();
      expect(entries).toHaveLength(REQUEST_LOG_CAPACITY);
      expect(entries[0]?.path).toBe('/nowhere/25');
      expect(entries.at(-1)?.path).toBe(`/nowhere/${total - 1}`);
      const overview = (await (await s.handler(new Request('http://sandbox.test/_sandbox/overview'))).json()) as {
        counters: { requests: number };
        requests: Array<{ path: string }>;
      };
      expect(overview.counters.requests).toBe(total);
      expect(overview.requests[0]?.path).toBe(`/nowhere/${total - 1}`);
      expect((await s.handler(new Request('http://sandbox.test/_sandbox/requests/1'))).status).toBe(404);
      const newest = entries.at(-1)?.id ?? 0;
      expect((await s.handler(new Request(`http://sandbox.test/_sandbox/requests/${newest}`))).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('the live feed', () => {
  async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp): Promise<string> {
    const decoder = new TextDecoder();
    let text = '';
    while (!pattern.test(text)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
      text += decoder.decode(value);
    }
    return text;
  }

  it('streams request summaries and counters as server-sent events, and ends when the sandbox closes', async () => {
    const own = await startSandbox({ port: 0 });
    const res = await fetch(`${own.url}/_sandbox/events`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, /retry: \d+/);
    await fetch(`${own.url}/nowhere?x=<b>`);
    const text = await readUntil(reader, /event: batch\ndata: .*\n\n/);
    const batch = JSON.parse(/data: (.*)\n/.exec(text)?.[1] ?? '{}') as { requests: unknown[]; counters: Record<string, number> };
    expect(batch.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/nowhere', status: 404 })]);
    expect(batch.counters).toMatchObject({ requests: 1, rateLimited: 0, serverErrors: 0 });
    // Summaries carry no headers or bodies: details are fetched on demand.
    expect(JSON.stringify(batch.requests)).not.toContain('headers');
    await own.close();
    await expect(reader.read()).resolves.toMatchObject({ done: true });
  });

  it('serves the page with a strict content security policy', async () => {
    const res = await fetch(`${sandbox.url}/_sandbox/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
    expect((await fetch(`${sandbox.url}/_sandbox`, { redirect: 'manual' })).headers.get('location')).toBe('/_sandbox/');
  });

  it(`refuses a watcher past ${FEED_MAX_WATCHERS} with 503, and takes one again once a page leaves`, async () => {
    const pages = await Promise.all(Array.from({ length: FEED_MAX_WATCHERS }, () => fetch(`${sandbox.url}/_sandbox/events`)));
    expect(pages.map((page) => page.status)).toEqual(pages.map(() => 200));
    const refused = await fetch(`${sandbox.url}/_sandbox/events`);
    expect(refused.status).toBe(503);
    await pages[0]?.body?.cancel();
    await expect
      .poll(async () => {
        const again = await fetch(`${sandbox.url}/_sandbox/events`);
        await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
    await Promise.all(pages.slice(1).map(async (page) => page.body?.cancel()));
  });

  it('answers 404 to Redeliver of an unknown delivery', async () => {
    expect((await control('POST', '/_sandbox/deliveries/dlv_nope/redeliver')).status).toBe(404);
  });

  it('builds nothing while nobody watches, and drops a watcher that stops reading', async () => {
    const feed = new InspectorFeed();
    let built = 0;
    feed.touch('requests', 1, () => ++built);
    feed.flush();
    expect(built).toBe(0);

    const reader = (feed.open() as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the retry line
    // Never read: past FEED_MAX_QUEUED_BYTES the watcher is dropped and further changes cost nothing.
    const item = 'x'.repeat(64 * 1024);
    let flushes = 0;
    while (feed.watchers === 1 && flushes < 100) {
      feed.touch('requests', flushes, () => (++built, item));
      feed.flush();
      flushes += 1;
    }
    expect(feed.watchers).toBe(0);
    // Dropped once about FEED_MAX_QUEUED_BYTES were held for it, not before.
    expect(flushes * item.length).toBeGreaterThan(FEED_MAX_QUEUED_BYTES * 0.9);
    expect(flushes * item.length).toBeLessThanOrEqual(FEED_MAX_QUEUED_BYTES + item.length);
    const before = built;
    feed.touch('requests', 99, () => ++built);
    feed.flush();
    expect(built).toBe(before);
    await expect(reader.read()).rejects.toThrow(/too slow/);
  });
});
