import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConflictError, TimeoutError } from '../../src/index.js';
import { fail, ok } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 1 });
const THING = 'POST /api/v1.1/thing';

afterEach(() => {
  vi.useRealTimers();
});

describe('waiting for an original still in flight', () => {
  it("ends at the call's deadline with a TimeoutError that says the write may have been applied", async () => {
    // The monotonic clock runs with real time, and jumps past the deadline once the retry met the 409.
    vi.useFakeTimers({ toFake: ['performance'], shouldAdvanceTime: true });
    t.server.on(THING, (_request, count) => (count === 1 ? { hang: true } : fail(409, 'CONFLICT', { message: 'still in progress' })));
    const pending = t.client
      .request({ method: 'POST', path: '/api/v1.1/thing', body: {}, idempotencyKey: 'thing-1', timeoutMs: 100 })
      .catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(t.server.requestsTo(THING).length).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    vi.advanceTimersByTime(10 * 60_000);
    const error = await pending;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveSucceeded: true, idempotencyKey: 'thing-1' });
    expect((error as Error).message).toBe(
      "POST /api/v1.1/thing: an earlier attempt with this Idempotency-Key was still in progress on the server when the call's deadline came" +
        " (the write may have been applied: send it again with idempotencyKey 'thing-1' to apply it at most once)",
    );
    expect(new Set(t.server.requestsTo(THING).map((request) => request.headers['idempotency-key']))).toEqual(new Set(['thing-1']));
  });

  it.each([
    ['another code (the key reused with another body)', fail(409, 'IDEMPOTENCY_KEY_REUSED')],
    ['the replayed answer of a finished original', fail(409, 'CONFLICT', { headers: { 'idempotency-replayed': 'true' } })],
  ])('fails at once, without asking again, when a retry meets a 409 with %s', async (_name, conflict) => {
    t.server.on(THING, [fail(503, 'INTERNAL_ERROR'), conflict, ok({ done: true })]);
    const error = await t.client
      .request({ method: 'POST', path: '/api/v1.1/thing', body: {}, idempotencyKey: 'thing-3' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409 });
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });

  it('ends at the deadline, saying the write may have been applied, when the deadline passes during a wait for the original', async () => {
    vi.useFakeTimers({ toFake: ['performance'], shouldAdvanceTime: true });
    const asked: string[] = [];
    const ignore = (): void => undefined;
    const client = await t.connect({
      logLevel: 'info',
      logger: { debug: ignore, info: (message: string) => void asked.push(message), warn: ignore, error: ignore },
    });
    t.server.on(THING, (_request, count) => (count === 1 ? { hang: true } : fail(409, 'CONFLICT', { message: 'still in progress' })));
    const pending = client
      .request({ method: 'POST', path: '/api/v1.1/thing', body: {}, idempotencyKey: 'thing-4', timeoutMs: 100 })
      .catch((caught: unknown) => caught);
    // The call has met the in-flight 409 and started its wait before asking again: the deadline passes meanwhile.
    await vi.waitFor(() => expect(asked.some((line) => line.includes('still in progress; asking again'))).toBe(true), { timeout: 5_000 });
    vi.advanceTimersByTime(10 * 60_000);
    const error = await pending;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveSucceeded: true });
    expect((error as Error).message).toMatch(/still in progress on the server/);
    expect(t.server.requestsTo(THING)).toHaveLength(2);
  });

  it('fails a retried read that meets 409 CONFLICT with it: without a key, no earlier attempt can be in flight', async () => {
    t.server.on('GET /api/v1.1/thing', [fail(503, 'INTERNAL_ERROR'), fail(409, 'CONFLICT'), ok({ done: true })]);
    const error = await t.client.request({ method: 'GET', path: '/api/v1.1/thing', maxRetries: 2 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect(t.server.requestsTo('GET /api/v1.1/thing')).toHaveLength(2);
  });

  it('treats a 409 CONFLICT to a first attempt as the state conflict it is', async () => {
    t.server.on(THING, fail(409, 'CONFLICT', { message: 'already cancelled' }));
    const error = await t.client
      .request({ method: 'POST', path: '/api/v1.1/thing', body: {}, idempotencyKey: 'thing-2' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect(t.server.requestsTo(THING)).toHaveLength(1);
  });
});
