/**
 * The rate-limits guide's tables, held to the client over loopback: "the answer | pauses | until"
 * (which answers of the server pause which gate, and for how long) and "method | when" (what the
 * client calls on a `RateLimiter` it is given, and when).
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, type LimiterContext, PartnerClient, type RateLimiter, type RateLimitInfo } from '../../src/index.js';
import type { Admission } from '../../src/core/rate-limit.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { fail, ok, type RecordedRequest, refusedAfterToken, type Reply, TOKEN_ROUTE } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 0 });

const SIMS = 'GET /api/v1.1/sims';
const USERS = 'GET /api/v1.1/users';
const SUBSCRIPTION = 'GET /api/v1.1/sims/{iccid}/subscription';
const SMS = 'POST /api/v1.1/sms';
const empty = { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } };
const page = (headers: Record<string, string> = {}): Reply => ok([], { ...empty, headers });
const sms = { fromNumber: '+15550100001', toNumber: '+15550100002', text: 'hi' };

/** Milliseconds from the answer of `first` to the arrival of `next`. */
const heldMs = (first: RecordedRequest | undefined, next: RecordedRequest | undefined): number => (next?.at ?? 0) - (first?.answeredAt ?? 0);

describe("the rate-limits guide's table of pauses the server imposes", () => {
  const { rows } = findTable(['the answer', 'pauses', 'until']);
  const row = (answer: RegExp): string[] => {
    const found = rows.filter(([cell]) => answer.test(cell ?? ''));
    if (found.length !== 1) throw new Error(`expected one row whose answer matches ${answer}, found ${found.length}`);
    return found[0] as string[];
  };

  it('has a row for a 429, and for Remaining 0 of a limit the client enforces or not', () => {
    expect(rows).toHaveLength(3);
  });

  it("pauses every call of the endpoint for a 429's Retry-After, not the other endpoints", async () => {
    const [, pauses, until] = row(/^a 429's `Retry-After`$/);
    expect([pauses, until]).toEqual(['every call of that endpoint, not only the throttled one', 'the time it names']);
    t.server.on('GET /api/v1.1/sims/111/subscription', fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }));
    t.server.on('GET /api/v1.1/sims/222/subscription', ok({}));
    t.server.on(SIMS, page());
    await expect(t.client.sims.retrieveSubscription('111')).rejects.toMatchObject({ status: 429 });
    const [throttled] = t.server.requests.filter((request) => request.path.endsWith('/111/subscription'));
    // Another call of the same endpoint (another ICCID) waits the second out; another endpoint does not.
    const sameEndpoint = t.client.sims.retrieveSubscription('222').catch(() => undefined);
    await t.client.sims.list();
    await sameEndpoint;
    const [other] = t.server.requestsTo(SIMS);
    const [paused] = t.server.requests.filter((request) => request.path.endsWith('/222/subscription'));
    expect(heldMs(throttled, paused)).toBeGreaterThanOrEqual(950);
    expect(other?.at).toBeLessThan(paused?.at ?? 0);
    expect(SUBSCRIPTION).toContain('{iccid}');
  });

  describe('X-RateLimit-Remaining: 0 of a limit the client enforces', () => {
    const [, pauses = '', until = ''] = row(/^`X-RateLimit-Remaining: 0` of a limit the client enforces/);
    const [answer = ''] = row(/^`X-RateLimit-Remaining: 0` of a limit the client enforces/);

    it('names both limits, and pauses that limit until its window ends, whatever Reset says', () => {
      expect(answer).toContain("(the account's, an endpoint's)");
      expect(pauses).toMatch(/^that limit's gate/);
      expect(until).toBe("the window's end: at most one window of that limit, whatever `X-RateLimit-Reset` says");
      expect(codeSpans(until)).toEqual(['X-RateLimit-Reset']);
    });

    it("pauses the account's gate for at most one window, not the hour Reset names", async () => {
      const client = await t.connect({ rateLimit: { account: { limit: 50, windowMs: 1000 } } });
      t.server.on(SIMS, [page({ 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' }), page()]);
      t.server.on(USERS, page());
      await client.sims.list();
      await client.users.list();
      const held = heldMs(t.server.requestsTo(SIMS)[0], t.server.requestsTo(USERS)[0]);
      expect(held).toBeGreaterThanOrEqual(200);
      expect(held).toBeLessThan(2500);
    });

    it("pauses an endpoint's gate for at most one window, and no other endpoint", async () => {
      const client = await t.connect({ rateLimit: { endpoints: { [SIMS]: { limit: 30, windowMs: 1000 } } } });
      t.server.on(SIMS, [page({ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' }), page()]);
      t.server.on(USERS, page());
      await client.sims.list();
      const other = client.users.list();
      await client.sims.list();
      await other;
      const [first, next] = t.server.requestsTo(SIMS);
      expect(heldMs(first, next)).toBeGreaterThanOrEqual(200);
      expect(heldMs(first, next)).toBeLessThan(2500);
      expect(t.server.requestsTo(USERS)[0]?.at).toBeLessThan(next?.at ?? 0);
    });
  });

  describe('X-RateLimit-Remaining: 0 of a limit the client was not configured with', () => {
    const [, pauses, until] = row(/^`X-RateLimit-Remaining: 0` of a limit the client was not configured with$/);

    it('pauses until Reset', () => {
      expect([pauses, until]).toEqual(["the endpoint's gate, or the account's", '`X-RateLimit-Reset`']);
    });

    it("pauses the endpoint's gate until Reset when the route has a limit of its own", async () => {
      t.server.on(SMS, [
        ok({ message: 'sent' }, { status: 201, headers: { 'x-ratelimit-limit': '7', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } }),
        ok({ message: 'sent' }, { status: 201 }),
      ]);
      t.server.on(USERS, page());
      await t.client.sms.send(sms);
      const other = t.client.users.list();
      await t.client.sms.send(sms);
      await other;
      const [first, next] = t.server.requestsTo(SMS);
      expect(heldMs(first, next)).toBeGreaterThanOrEqual(950);
      expect(t.server.requestsTo(USERS)[0]?.at).toBeLessThan(next?.at ?? 0);
    });

    it("pauses the account's gate until Reset when the route has none", async () => {
      t.server.on(SIMS, page({ 'x-ratelimit-limit': '7', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }));
      t.server.on(USERS, page());
      await t.client.sims.list();
      await t.client.users.list();
      expect(heldMs(t.server.requestsTo(SIMS)[0], t.server.requestsTo(USERS)[0])).toBeGreaterThanOrEqual(950);
    });
  });
});

describe("the rate-limits guide's table of a limiter's methods", () => {
  const { rows } = findTable(['method', 'when']);
  /** Method name → whether the row marks it optional. */
  const methods = new Map(rows.map(([method = '']) => [/^`(\w+)\(/.exec(method)?.[1] ?? method, method.endsWith('(optional)')]));
  const signature = (name: string): string[] => {
    const method = rows.find(([cell]) => cell?.startsWith(`\`${name}(`))?.[0] ?? '';
    return (/\(([^)]*)\)/.exec(codeSpans(method)[0] ?? '')?.[1] ?? '').split(', ').filter(Boolean);
  };

  /** A limiter that records every call, each method present or not as asked. */
  function recordingLimiter(without: string[] = []) {
    const calls: Array<[string, unknown[]]> = [];
    const all = {
      acquire: (...args: unknown[]) => void calls.push(['acquire', args]),
      release: (...args: unknown[]) => void calls.push(['release', args]),
      giveBack: (...args: unknown[]) => void calls.push(['giveBack', args]),
      pause: (...args: unknown[]) => void calls.push(['pause', args]),
      close: (...args: unknown[]) => void calls.push(['close', args]),
      attach: (...args: unknown[]) => void calls.push(['attach', args]),
    };
    const limiter = Object.fromEntries(Object.entries(all).filter(([name]) => !without.includes(name))) as unknown as RateLimiter;
    return { limiter, calls };
  }

  it('lists every method the client calls', () => {
    expect([...methods.keys()].sort()).toEqual(['acquire', 'attach', 'close', 'giveBack', 'pause', 'release']);
  });

  it('accepts a limiter without the methods marked optional, and refuses one without any other', () => {
    for (const [name, optional] of methods) {
      const { limiter } = recordingLimiter([name]);
      let refused = false;
      try {
        new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, rateLimit: limiter });
      } catch (error) {
        refused = error instanceof ConfigurationError && error.option === 'rateLimit';
      }
      expect([name, refused]).toEqual([name, !optional]);
    }
  });

  it('calls attach once per client before its first call, with the account id, logger and maxServerWaitMs', async () => {
    expect(signature('attach')).toEqual(['context']);
    const { limiter, calls } = recordingLimiter();
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    t.server.on(SIMS, page());
    const client = await t.connect({ rateLimit: limiter, logger, maxServerWaitMs: 5000 });
    await client.sims.list();
    await client.sims.list();
    expect(calls.filter(([name]) => name === 'attach')).toHaveLength(1);
    expect(calls[0]?.[0]).toBe('attach');
    const context = calls[0]?.[1][0] as LimiterContext;
    expect(await context.accountId).toMatch(/^[0-9a-f]{16}$/);
    expect(await context.accountId).not.toContain(KEY);
    expect(context.maxServerWaitMs).toBe(5000);
    expect(context.logger).toBeDefined();
  });

  it('calls acquire before sending, with the route and an admission; a promise holds the request until it resolves', async () => {
    expect(signature('acquire')).toEqual(['route', 'admission']);
    const row = rows.find(([cell]) => cell?.startsWith('`acquire('))?.[1] ?? '';
    for (const member of ['admission.expired(waitMs)', 'admission.waitDeadline', 'admission.signal.reason', 'admission.signal'])
      expect(codeSpans(row)).toContain(member);
    let admission: Admission | undefined;
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    const limiter: RateLimiter = {
      acquire: (route, given) => {
        if (route === SIMS) admission = given;
        return route === SIMS ? held : undefined;
      },
      release: () => undefined,
      pause: () => undefined,
      close: () => undefined,
    };
    t.server.on(SIMS, page());
    const client = await t.connect({ rateLimit: limiter });
    const call = client.sims.list();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(t.server.requestsTo(SIMS)).toHaveLength(0);
    expect(typeof admission?.expired).toBe('function');
    expect(typeof admission?.waitDeadline).toBe('number');
    expect(admission?.signal).toBeInstanceOf(AbortSignal);
    open();
    await call;
    expect(t.server.requestsTo(SIMS)).toHaveLength(1);
  });

  it("calls release once the request is over, with when it left and the answer's X-RateLimit-* headers", async () => {
    expect(signature('release')).toEqual(['route', 'sentAt', 'rateLimit']);
    const { limiter, calls } = recordingLimiter();
    t.server.on(SIMS, page({ 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '60' }));
    t.server.on(USERS, page());
    const client = await t.connect({ rateLimit: limiter });
    const before = performance.now();
    await client.sims.list();
    await client.users.list();
    const released = calls.filter(([name, [route]]) => name === 'release' && route !== TOKEN_ROUTE).map(([, args]) => args);
    expect(released.map(([route]) => route)).toEqual([SIMS, USERS]);
    const [, sentAt, rateLimit] = released[0] as [string, number, RateLimitInfo];
    expect(sentAt).toBeGreaterThanOrEqual(before);
    expect(rateLimit).toMatchObject({ limit: 120, remaining: 119 });
    expect(released[1]?.[2]).toBeUndefined();
  });

  it('calls giveBack instead of release when the request provably never left', async () => {
    expect(signature('giveBack')).toEqual(['route']);
    const { limiter, calls } = recordingLimiter();
    const refusing = await refusedAfterToken();
    const client = t.track(new PartnerClient({ baseUrl: refusing.url, key: KEY, secret: SECRET, maxRetries: 0, rateLimit: limiter }));
    await expect(client.sims.list()).rejects.toMatchObject({ requestNotSent: true });
    await refusing.close();
    const simsCalls = calls.filter(([, [route]]) => route === SIMS).map(([name]) => name);
    expect(simsCalls).toEqual(['acquire', 'giveBack']);
  });

  it("calls pause with a 429's Retry-After for that route", async () => {
    expect(signature('pause')).toEqual(['route', 'ms']);
    const { limiter, calls } = recordingLimiter();
    t.server.on(SIMS, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '7' } }));
    const client = await t.connect({ rateLimit: limiter });
    await expect(client.sims.list()).rejects.toMatchObject({ status: 429 });
    expect(calls.filter(([name]) => name === 'pause').map(([, args]) => args)).toEqual([[SIMS, 7000]]);
  });

  it('never calls close on a limiter you pass, even when the client closes', async () => {
    expect(rows.find(([cell]) => cell === '`close()`')?.[1]).toMatch(/^never called for a limiter you pass/);
    const { limiter, calls } = recordingLimiter();
    t.server.on(SIMS, page());
    const client = await t.connect({ rateLimit: limiter });
    await client.sims.list();
    await client.close();
    await client.destroy();
    expect(calls.filter(([name]) => name === 'close')).toHaveLength(0);
  });
});
