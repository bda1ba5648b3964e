/**
 * A RateLimiter of the caller's own as the `rateLimit` option: the client uses it as is, gives a
 * slot back when a request provably never left, never closes it, and still cuts its own calls
 * out of it on destroy().
 */
import { describe, expect, it } from 'vitest';
import { ClientClosedError, ConfigurationError, ConnectionError, PartnerClient } from '../../src/index.js';
import type { Admission, RateLimitInfo, RateLimiter } from '../../src/index.js';
import { ok, refusedUrl } from '../helpers/server.js';
import { KEY, SECRET, settlesAtOnce, useTestServer } from '../helpers/server-client.js';

type Event = ['acquire' | 'giveBack' | 'pause', string] | ['release', string, RateLimitInfo | undefined] | ['close'];

/** Admits everything at once and records what the client told it. */
class RecordingLimiter implements RateLimiter {
  readonly events: Event[] = [];
  acquire(route: string): Promise<void> | undefined {
    this.events.push(['acquire', route]);
    return undefined;
  }
  release(route: string, _sentAt: number, rateLimit: RateLimitInfo | undefined): void {
    this.events.push(['release', route, rateLimit]);
  }
  giveBack(route: string): void {
    this.events.push(['giveBack', route]);
  }
  pause(route: string): void {
    this.events.push(['pause', route]);
  }
  close(): void {
    this.events.push(['close']);
  }
}

const THING = 'GET /api/v1.1/thing';
const t = useTestServer();

describe('rateLimit: a RateLimiter of your own', () => {
  it('is asked for a slot and told the answer X-RateLimit headers, and never closed by the client', async () => {
    const limiter = new RecordingLimiter();
    t.server.on(THING, ok({ id: 1 }, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119', 'x-ratelimit-reset': '60' } }));
    const client = await t.connect({ rateLimit: limiter });
    await client.request({ method: 'GET', path: '/api/v1.1/thing' });
    await client.close();
    const thing = limiter.events.filter((event) => event[1] === THING);
    expect(thing).toEqual([
      ['acquire', THING],
      ['release', THING, { limit: 120, remaining: 119, resetSeconds: 60 }],
    ]);
    expect(limiter.events).not.toContainEqual(['close']);
  });

  it('gets the slot back, not a release, when the connection was refused', async () => {
    const limiter = new RecordingLimiter();
    const client = new PartnerClient({
      baseUrl: await refusedUrl(),
      key: KEY,
      secret: SECRET,
      rateLimit: limiter,
      maxRetries: 1,
    });
    try {
      const error = await client.auth.token().catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as ConnectionError).requestNotSent).toBe(true);
    } finally {
      await client.close();
    }
    // Two attempts (one retry), each acquired and given back; nothing counted as sent.
    expect(limiter.events.map((event) => event[0])).toEqual(['acquire', 'giveBack', 'acquire', 'giveBack']);
  });

  it('is released, not given back, when the request may have reached the server', async () => {
    const limiter = new RecordingLimiter();
    t.server.on(THING, { hang: true });
    const client = await t.connect({ rateLimit: limiter, timeoutMs: 50, maxRetries: 0 });
    // No token: on a loaded machine the exchange, held to the same 50 ms, could time out instead.
    await expect(client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false })).rejects.toThrow(/timed out/);
    expect(limiter.events.filter((event) => event[1] === THING).map((event) => event[0])).toEqual(['acquire', 'release']);
  });

  it('has a call waiting in it cut by destroy() with ClientClosedError, through the admission signal', async () => {
    let admission: Admission | undefined;
    const blocking: RateLimiter = {
      acquire: (_route, waiting) =>
        new Promise<void>((_resolve, reject) => {
          admission = waiting;
          waiting?.signal?.addEventListener('abort', () => reject(waiting.signal?.reason));
        }),
      release: () => {},
      pause: () => {},
      close: () => {
        throw new Error('the client must not close a limiter it was given');
      },
    };
    const client = new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, rateLimit: blocking });
    const call = client.auth.token().catch((failure: unknown) => failure);
    while (admission === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    await client.destroy();
    const error = await call;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect((error as ClientClosedError).requestNotSent).toBe(true);
  });

  it('sends nothing for a call destroy() cut while it waited, even when the limiter admits it afterwards, and gets the slot back', async () => {
    const events: string[] = [];
    let admit: (() => void) | undefined;
    // Deaf to the admission signal: it admits whenever it is told to.
    const deaf: RateLimiter = {
      acquire: () => new Promise<void>((resolve) => (admit = resolve)),
      release: () => void events.push('release'),
      giveBack: () => void events.push('giveBack'),
      pause: () => {},
      close: () => {},
    };
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: deaf });
    const call = client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false }).catch((caught: unknown) => caught);
    while (admit === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    const destroyed = client.destroy();
    admit();
    const error = await call;
    await destroyed;
    expect(error).toBeInstanceOf(ClientClosedError);
    expect(error).toMatchObject({ requestNotSent: true });
    expect(t.server.requestsTo(THING)).toHaveLength(0);
    expect(events).toEqual(['giveBack']);
  });

  it("has a call waiting in it end with the caller's abort reason, whatever the limiter rejects with", async () => {
    let admission: Admission | undefined;
    const dropping: RateLimiter = {
      acquire: (_route, waiting) =>
        new Promise<void>((_resolve, reject) => {
          admission = waiting;
          waiting?.signal?.addEventListener('abort', () => reject(new Error('dropped from the queue')));
        }),
      release: () => {},
      pause: () => {},
      close: () => {},
    };
    const client = await t.connect({ rateLimit: dropping });
    const controller = new AbortController();
    const call = client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false, signal: controller.signal });
    call.catch(() => undefined);
    while (admission === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    const reason = new Error('the caller gave up');
    controller.abort(reason);
    expect(await settlesAtOnce(call)).toBe(true);
    await expect(call).rejects.toBe(reason);
    expect(t.server.requestsTo(THING)).toHaveLength(0);
  });

  it('is refused at construction when it lacks one of the four methods', () => {
    const partial = { acquire: () => undefined, release: () => {} };
    expect(() => new PartnerClient({ baseUrl: t.server.url, rateLimit: partial as unknown as RateLimiter })).toThrow(ConfigurationError);
    expect(() => new PartnerClient({ baseUrl: t.server.url, rateLimit: partial as unknown as RateLimiter })).toThrow(
      /rateLimit: is a RateLimiter without pause, close/,
    );
  });
});
