/**
 * The window gate of the client's own limiter (src/core/window-gate.ts), seen through the client:
 * when a slot frees up (its window, its reset, the window its first answer located), the order of
 * the queue, a deadline or a pause it cannot outwait, and that it holds no timer once no call
 * waits. On a fake clock the client and the server share, every instant is bounded from both
 * sides: a slot held too long fails a test as surely as one freed too early.
 */
import { describe, expect, it, vi } from 'vitest';
import { PartnerClient, RateLimitError, TimeoutError } from '../../src/index.js';
import { type Admission, marginMs, WindowGate } from '../../src/core/window-gate.js';
import { clockWindows, fail, ok, rateLimitHeaders, type RecordedRequest } from '../helpers/server.js';
import { settleOnFakeClock, useFakeClock } from '../helpers/clock.js';
import { settlesAtOnce, useTestServer } from '../helpers/server-client.js';

const THING = 'GET /api/v1.1/thing';

const t = useTestServer();
// Windows, resets and Retry-After pass on a fake clock the client and the server share.
useFakeClock();

describe('when a slot frees up: as soon as the server window that counted it has ended, no later', () => {
  const send = (client: PartnerClient) => client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false });
  const sent = () => t.server.requestsTo(THING);
  const answeredAt = (request: RecordedRequest | undefined): number => request?.answeredAt ?? Number.NaN;
  // A process that has run for a day: its monotonic clock reads far from zero.
  const upForADay = () => vi.advanceTimersByTimeAsync(24 * 60 * 60_000);

  it('frees the slot one window after its answer, without X-RateLimit headers', async () => {
    await upForADay();
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 1000 } } });
    await send(client);
    await settleOnFakeClock(send(client));
    const [first, second] = sent();
    expect((second?.at ?? 0) - answeredAt(first)).toBeGreaterThanOrEqual(1000);
    expect((second?.at ?? 0) - answeredAt(first)).toBeLessThan(1000 + 100);
  });

  it("holds a route for a 429's Retry-After, no longer", async () => {
    await upForADay();
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }), ok(1)]);
    const client = await t.connect({ maxRetries: 0 });
    await expect(send(client)).rejects.toBeInstanceOf(RateLimitError);
    await settleOnFakeClock(send(client));
    const [throttled, second] = sent();
    expect((second?.at ?? 0) - answeredAt(throttled)).toBeGreaterThanOrEqual(1000);
    expect((second?.at ?? 0) - answeredAt(throttled)).toBeLessThan(1000 + 100);
  });

  it('frees the slot at X-RateLimit-Reset when the reset comes before the end of the window', async () => {
    t.server.on(THING, ok(1, { headers: rateLimitHeaders(2, 1, 1) }));
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 } } });
    await settleOnFakeClock(Promise.all([send(client), send(client), send(client)]));
    const [first, second, third] = sent();
    const firstAnswer = Math.min(answeredAt(first), answeredAt(second));
    expect((third?.at ?? 0) - firstAnswer).toBeGreaterThanOrEqual(1000);
    expect((third?.at ?? 0) - firstAnswer).toBeLessThan(2000);
  });

  it('sends the next call at once after an answer of a known limit with some of it left', async () => {
    t.server.on(THING, ok(1, { headers: rateLimitHeaders(5, 3, 60) }));
    const client = await t.connect({ rateLimit: { account: { limit: 5, windowMs: 60_000 } } });
    await send(client);
    await settleOnFakeClock(send(client));
    const [first, second] = sent();
    expect((second?.at ?? Number.POSITIVE_INFINITY) - answeredAt(first)).toBeLessThan(100);
  });

  // Windows of a minute: a Reset in whole seconds says where one ends, to the second.
  const MINUTE = 60_000;
  /** How late after the 60 s a slot may free: the margin for a window of a minute, its step, and two of the fake clock's. */
  const LATE_MS = marginMs(MINUTE) + MINUTE / 1000 + 50;

  it('frees a whole batch when the window its first answer located ends, whatever the later answers took', async () => {
    // Three per minute, each window opened by its first request: that arrival is answered at
    // once, the two others 300 and 600 ms later; Remaining counts down as the server's would.
    let arrived = 0;
    t.server.on(THING, () => {
      const place = arrived++ % 3;
      return ok(1, { headers: rateLimitHeaders(3, 2 - place, 60), delayMs: 300 * place });
    });
    const client = await t.connect({ rateLimit: { account: { limit: 3, windowMs: MINUTE } }, timeoutMs: 5 * MINUTE });
    await settleOnFakeClock(Promise.all(Array.from({ length: 9 }, () => send(client))));
    const requests = sent();
    for (const batch of [1, 2]) {
      const opener = answeredAt(requests[3 * (batch - 1)]);
      for (const request of requests.slice(3 * batch, 3 * batch + 3)) {
        expect(request.at - opener).toBeGreaterThanOrEqual(MINUTE);
        expect(request.at - opener).toBeLessThan(MINUTE + LATE_MS);
      }
    }
  });

  it("locates the window from any answer's Reset, not only the first of the window", async () => {
    // Four per minute, each window opened by its first request, whose answer carries no
    // X-RateLimit headers; the three others are answered 300, 600 and 900 ms later with them.
    let arrived = 0;
    t.server.on(THING, () => {
      const place = arrived++ % 4;
      return place === 0 ? ok(1) : ok(1, { headers: rateLimitHeaders(4, 3 - place, 60), delayMs: 300 * place });
    });
    const client = await t.connect({ rateLimit: { account: { limit: 4, windowMs: MINUTE } }, timeoutMs: 5 * MINUTE });
    await settleOnFakeClock(Promise.all(Array.from({ length: 8 }, () => send(client))));
    const requests = sent();
    // The second answer places the window's end within its minute: the later two free with it.
    const locator = answeredAt(requests[1]);
    for (const request of requests.slice(5)) {
      expect(request.at - locator).toBeGreaterThanOrEqual(MINUTE);
      expect(request.at - locator).toBeLessThan(MINUTE + LATE_MS);
    }
  });

  it('keeps the window it located when a late answer from an earlier window comes in', async () => {
    // Three per minute. The first window's first arrival is answered 61.5 s late, after the
    // second window's own first answer: it says where a window long over lay, not the current one.
    const roles = [
      { remaining: 2, delayMs: 61_500 },
      { remaining: 1, delayMs: 0 },
      { remaining: 0, delayMs: 0 },
      { remaining: 2, delayMs: 0 },
      { remaining: 1, delayMs: 0 },
    ];
    let arrived = 0;
    t.server.on(THING, () => {
      const role = roles[arrived++] ?? { remaining: 2, delayMs: 0 };
      return ok(1, { headers: rateLimitHeaders(3, role.remaining, 60), delayMs: role.delayMs });
    });
    const client = await t.connect({ rateLimit: { account: { limit: 3, windowMs: MINUTE } }, timeoutMs: 5 * MINUTE });
    await settleOnFakeClock(Promise.all(Array.from({ length: 8 }, () => send(client))));
    const requests = sent();
    const [late, , , opener] = requests;
    expect(answeredAt(late)).toBeGreaterThan(answeredAt(opener));
    // The second window's three slots, the late one's included, free up together as it ends.
    for (const request of requests.slice(5)) {
      expect(request.at - answeredAt(opener)).toBeGreaterThanOrEqual(MINUTE);
      expect(request.at - answeredAt(opener)).toBeLessThan(MINUTE + LATE_MS);
    }
  });

  it('frees a slot whose answer said nothing by the Reset of the window located, not a window after', async () => {
    // The first answer of a window half over (Reset 30 of 60 s) locates its end; the next
    // answer carries no X-RateLimit headers, yet arrived before that end, so counted in it.
    t.server.on(THING, [ok(1, { headers: rateLimitHeaders(2, 1, 30) }), ok(2)]);
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: MINUTE } }, timeoutMs: 5 * MINUTE });
    await send(client);
    await vi.advanceTimersByTimeAsync(1000);
    await send(client);
    await settleOnFakeClock(Promise.all([send(client), send(client)]));
    const [opener, , ...next] = sent();
    expect(next).toHaveLength(2);
    for (const request of next) {
      expect(request.at - answeredAt(opener)).toBeGreaterThanOrEqual(30_000);
      expect(request.at - answeredAt(opener)).toBeLessThan(30_000 + LATE_MS);
    }
  });

  it('does not take a window opened on the clock by another process to begin at its own first answer', async () => {
    // Two per minute, windows on the clock's whole minutes. Another client of the account sends
    // the first request of every window but the first. This client's first request comes a
    // second before the first window ends (Remaining 1, Reset 1): it says where that window ends,
    // not that a window began there. Its second, in the next window, is told Remaining 0.
    const windows = clockWindows(2, MINUTE);
    t.server.on(THING, windows.reply);
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: MINUTE } }, timeoutMs: 5 * MINUTE, maxRetries: 0 });
    await vi.advanceTimersByTimeAsync(MINUTE - 1000 - (performance.now() % MINUTE));
    const start = Math.floor(performance.now() / MINUTE) * MINUTE;
    await send(client);
    await vi.advanceTimersByTimeAsync(1100);
    await send(client);
    await settleOnFakeClock(Promise.all([send(client), send(client)]));
    expect(windows.refused()).toBe(0);
    // The third waits for the second window's end (another process's request and its own fill it).
    const [, , third] = sent();
    expect((third?.at ?? 0) - start).toBeGreaterThanOrEqual(2 * MINUTE);
    expect((third?.at ?? 0) - start).toBeLessThan(2 * MINUTE + 1000 + LATE_MS);
  });

  it.each([
    ['lets a located window free no slot of an answer after it ended', 60],
    // A window's first answer claims a reset a day away: the window still ends within a minute.
    ['locates no window longer than its own from a Reset past it', 86_400],
  ])('%s', async (_, resetSeconds) => {
    t.server.on(THING, [ok(1, { headers: rateLimitHeaders(2, 1, resetSeconds) }), ok(2)]);
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: MINUTE } }, timeoutMs: 5 * MINUTE });
    await send(client);
    await vi.advanceTimersByTimeAsync(2 * MINUTE);
    await Promise.all([send(client), send(client)]);
    await settleOnFakeClock(send(client));
    const [, second, third, fourth] = sent();
    expect((fourth?.at ?? 0) - Math.min(answeredAt(second), answeredAt(third))).toBeGreaterThanOrEqual(MINUTE);
  });

  it('holds each slot a window after its own answer, not after an earlier one', async () => {
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 1000 } } });
    await send(client);
    await vi.advanceTimersByTimeAsync(500);
    await send(client);
    await settleOnFakeClock(Promise.all([send(client), send(client)]));
    const [first, second, third, fourth] = sent();
    expect((third?.at ?? 0) - answeredAt(first)).toBeGreaterThanOrEqual(1000);
    expect((fourth?.at ?? 0) - answeredAt(second)).toBeGreaterThanOrEqual(1000);
  });

  it('admits no more than the limit when a pause for Remaining 0 ends', async () => {
    t.server.on(THING, [ok(1, { headers: rateLimitHeaders(2, 0, 1) }), ok(2)]);
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 } } });
    await send(client);
    await settleOnFakeClock(Promise.all([send(client), send(client), send(client)]));
    const [first, second, third, fourth] = sent();
    expect((second?.at ?? 0) - answeredAt(first)).toBeGreaterThanOrEqual(1000);
    expect((fourth?.at ?? 0) - Math.min(answeredAt(second), answeredAt(third))).toBeGreaterThanOrEqual(60_000);
  });

  it('still admits the calls left waiting when one of them gives up', async () => {
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 1000 } } });
    await send(client);
    const controller = new AbortController();
    const givingUp = client
      .request({ method: 'GET', path: '/api/v1.1/thing', auth: false, signal: controller.signal })
      .catch((caught: unknown) => caught);
    const waiting = send(client);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error('gave up'));
    expect(((await givingUp) as Error).message).toBe('gave up');
    await settleOnFakeClock(waiting);
    const [first, second] = sent();
    expect(sent()).toHaveLength(2);
    expect((second?.at ?? 0) - answeredAt(first)).toBeLessThan(1000 + 100);
  });

  it('waits for a slot past the timer range when its deadline lies further still', async () => {
    const longestTimerMs = 2_147_483_647;
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: longestTimerMs } }, timeoutMs: longestTimerMs, maxRetries: 3 });
    await send(client);
    const waiting = send(client);
    // The slot frees up a window and its margin (about 25 days) after the answer; the call's
    // deadline, four attempts' worth, lies well beyond.
    await vi.advanceTimersByTimeAsync(longestTimerMs + 2 * 60 * 60_000);
    await expect(settleOnFakeClock(waiting)).resolves.toBe(1);
    expect(sent()).toHaveLength(2);
  });

  it("fails a call at once, unsent, with the pause's length, when a pause other calls already wait out ends past its deadline", async () => {
    await upForADay();
    t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '300' } }), ok(2)]);
    const client = await t.connect({ maxServerWaitMs: 10 * 60_000, maxRetries: 0 });
    await expect(send(client)).rejects.toBeInstanceOf(RateLimitError);
    const patient = client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false, timeoutMs: 10 * 60_000 });
    await vi.advanceTimersByTimeAsync(10);
    const hasty = client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false, timeoutMs: 100 });
    hasty.catch(() => undefined);
    expect(await settlesAtOnce(hasty)).toBe(true);
    const error = await hasty.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ requestNotSent: true });
    const waitMs = Number(/\((\d+) ms\)/.exec((error as Error).message)?.[1]);
    expect(waitMs).toBeGreaterThan(299_000);
    expect(waitMs).toBeLessThanOrEqual(300_000);
    await expect(settleOnFakeClock(patient)).resolves.toBe(2);
  });

  it('admits the calls waiting first, before one that comes once the slot has freed up but before their timer ran', async () => {
    const OTHER = 'GET /api/v1.1/other';
    t.server.on(THING, ok(1));
    t.server.on(OTHER, ok(2));
    const client = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 1000 } } });
    await send(client);
    const waiting = send(client);
    await vi.advanceTimersByTimeAsync(10);
    // A busy event loop: the clock is past the instant the slot frees up, and the timer that
    // admits the waiting call has not run yet when another call comes.
    const now = vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 2000);
    const newcomer = client.request({ method: 'GET', path: '/api/v1.1/other', auth: false });
    for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
    now.mockRestore();
    for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(t.server.requestsTo(OTHER)).toHaveLength(0);
    await settleOnFakeClock(Promise.all([waiting, newcomer]));
    const [, second] = sent();
    const [other] = t.server.requestsTo(OTHER);
    expect(other?.at).toBeGreaterThanOrEqual((second?.answeredAt ?? Number.POSITIVE_INFINITY) + 1000);
  });

  it('holds no timer once no call waits in it', async () => {
    // The first answer frees its slot a second later (its reset); the second is held in flight,
    // and says a limit the client does not know has none left for five seconds.
    let releaseHeld: () => void = () => {};
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    t.server.on(THING, async (_request, count) => {
      if (count === 1) return ok(1, { headers: rateLimitHeaders(2, 1, 1) });
      if (count === 2) {
        await held;
        return ok(2, { headers: rateLimitHeaders(50, 0, 5) });
      }
      return ok(count);
    });
    const client = await t.connect({ rateLimit: { account: { limit: 2, windowMs: 60_000 } }, timeoutMs: 100_000, maxRetries: 0 });
    const withSignal = (controller: AbortController) =>
      client.request({ method: 'GET', path: '/api/v1.1/thing', auth: false, signal: controller.signal }).catch((caught: unknown) => caught);
    await send(client);
    const inFlight = send(client);
    // A call admitted after waiting, then answered: its slot is counted for the window.
    await settleOnFakeClock(send(client));
    // Two calls wait for that slot; the call in flight is answered, and pauses them; both give
    // up, the last one leaving the queue empty.
    const [first, second] = [new AbortController(), new AbortController()];
    const waiting = [withSignal(first), withSignal(second)];
    await vi.advanceTimersByTimeAsync(10);
    releaseHeld();
    await inFlight;
    first.abort(new Error('gave up'));
    second.abort(new Error('gave up'));
    await Promise.all(waiting);
    // Long enough for the connection's own timers to end, far short of the window.
    await vi.advanceTimersByTimeAsync(15_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps its count exact when it drops the entries of answers long past', async () => {
    t.server.on(THING, ok(1));
    const client = await t.connect({ rateLimit: { account: { limit: 30, windowMs: 20 } } });
    // More than 512 answers that free their slots at instants of their own, the first two
    // together: all of them have freed up when the next calls come, and the limiter lets their
    // entries go.
    await Promise.all([send(client), send(client)]);
    for (let i = 0; i < 520; i++) {
      await vi.advanceTimersByTimeAsync(1);
      await send(client);
    }
    await vi.advanceTimersByTimeAsync(100);
    // Three answers that share one instant, then the window they were counted in ends.
    await Promise.all([send(client), send(client), send(client)]);
    await vi.advanceTimersByTimeAsync(100);
    // A window's worth goes out at once, with no fake time passing; the one call more waits.
    const before = sent().length;
    const burst = Promise.all(Array.from({ length: 31 }, () => send(client)));
    for (let turn = 0; turn < 5000 && sent().length < before + 30; turn++) await new Promise((resolve) => setImmediate(resolve));
    for (let turn = 0; turn < 200; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(sent().length - before).toBe(30);
    await settleOnFakeClock(burst);
    expect(sent().length - before).toBe(31);
  });
});

/**
 * What the gate promises any caller, beyond the client's own use of it (the limiter never asks a
 * closed gate, and always brings an admission): held here on the class itself.
 */
describe('WindowGate on its own', () => {
  const full = () => {
    const gate = new WindowGate({ limit: 1, windowMs: 1000 });
    expect(gate.acquire()).toBeUndefined();
    return gate;
  };
  const admission = (signal?: AbortSignal): Admission => ({
    signal,
    waitDeadline: performance.now() + 60_000,
    expired: () => new Error('expired'),
  });

  it('refuses every acquire once closed, with the reason it was closed with', async () => {
    const gate = new WindowGate({ limit: 5, windowMs: 1000 });
    const reason = new Error('closed');
    gate.close(reason);
    await expect(gate.acquire()).rejects.toBe(reason);
    await expect(gate.acquire(admission())).rejects.toBe(reason);
  });

  it('admits a caller that brings no admission once a slot frees', async () => {
    const gate = full();
    const waiting = gate.acquire();
    expect(waiting).toBeInstanceOf(Promise);
    gate.release(performance.now(), undefined);
    await vi.advanceTimersByTimeAsync(1000 + marginMs(1000) + 1);
    await expect(waiting).resolves.toBeUndefined();
  });

  it('refuses at once a caller whose signal is already aborted, with its reason', async () => {
    const gate = full();
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(gate.acquire(admission(controller.signal))).rejects.toThrow('gone');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('takes a pause of NaN as none: a later pause still holds', async () => {
    const gate = new WindowGate({ limit: 5, windowMs: 1000 });
    gate.pauseUntil(Number.NaN);
    gate.pauseUntil(performance.now() + 5_000);
    expect(gate.acquire()).toBeInstanceOf(Promise);
  });
});
