/**
 * Why a call ended, as one name: every ending of `CALL_ENDS` made by a real call over loopback,
 * read where a partner reads it (the diagnostics message's `end`, the span's `partner.call.end`)
 * and checked against the error the call rejected with. The list of cases is the list of names:
 * an ending added without a case here fails the first test.
 */
import diagnostics from 'node:diagnostics_channel';
import { SpanKind } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  type CallEndReason,
  ClientClosedError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  type PartnerClient,
  REQUEST_END_CHANNEL,
  REQUEST_ERROR_CHANNEL,
  RateLimitError,
  TimeoutError,
  type RequestEndMessage,
  type RequestErrorMessage,
} from '../../src/index.js';
import { Redis } from 'ioredis';
import { RedisRateLimiter } from '../../src/redis/index.js';
import { CALL_ENDS, endOf } from '../../src/core/call-end.js';
import { DEADLINE_SLACK_MS } from '../../src/core/defaults.js';
import { useTelemetry } from '../helpers/otel.js';
import { TOKEN_ROUTE, fail, ok, refusedUrl, tokenAnswer } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';
import { findTable } from '../docs/markdown.js';

const telemetry = useTelemetry();
const t = useTestServer({ maxRetries: 1 });
const THING = 'GET /api/v1.1/thing';
const WRITE = 'POST /api/v1.1/thing';

const connections: Redis[] = [];

afterEach(() => {
  vi.useRealTimers();
  for (const connection of connections.splice(0)) connection.disconnect();
});

/** An ioredis client of a loopback port nothing listens on: every command fails at once. */
async function refusedRedis(): Promise<Redis> {
  const { port } = new URL(await refusedUrl());
  const connection = new Redis({
    host: '127.0.0.1',
    port: Number(port),
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  connection.on('error', () => undefined);
  connections.push(connection);
  return connection;
}

const get = (
  client: PartnerClient,
  options: { signal?: AbortSignal; maxRetries?: number; timeoutMs?: number; auth?: boolean } = {},
): Promise<unknown> => client.request({ method: 'GET', path: '/api/v1.1/thing', ...options });

/** What one call published and rejected with. */
interface Ended {
  /** `end` of the call's diagnostics message; undefined when none was published. */
  end: CallEndReason | undefined;
  /** `partner.call.end` of its span. */
  spanEnd: unknown;
  /** What it rejected with; undefined when it resolved. */
  error: unknown;
}

/** Runs `call` and reads how it ended, the token exchange's own call left out. */
async function ended(call: () => Promise<unknown>): Promise<Ended> {
  const messages: Array<RequestEndMessage | RequestErrorMessage> = [];
  const listen = (message: unknown): void => {
    const published = message as RequestEndMessage | RequestErrorMessage;
    if (published.request.kind === 'api') messages.push(published);
  };
  diagnostics.subscribe(REQUEST_END_CHANNEL, listen);
  diagnostics.subscribe(REQUEST_ERROR_CHANNEL, listen);
  let error: unknown;
  try {
    await call();
  } catch (caught) {
    error = caught;
  } finally {
    diagnostics.unsubscribe(REQUEST_END_CHANNEL, listen);
    diagnostics.unsubscribe(REQUEST_ERROR_CHANNEL, listen);
  }
  const spans = telemetry()
    .spans.getFinishedSpans()
    .filter((span) => span.kind === SpanKind.CLIENT && span.name !== TOKEN_ROUTE);
  expect(messages.length).toBeLessThanOrEqual(1);
  return { end: messages[0]?.end, spanEnd: spans.at(-1)?.attributes['partner.call.end'], error };
}

/** Each ending, made by one call, and what that call must reject with. */
const cases: Record<CallEndReason, { make: () => Promise<Ended>; rejects: (error: unknown) => void }> = {
  answered: {
    make: () => {
      t.server.on(THING, ok(1));
      return ended(() => get(t.client));
    },
    rejects: (error) => expect(error).toBeUndefined(),
  },
  not_retryable: {
    make: () => {
      t.server.on(THING, fail(404, 'NOT_FOUND'));
      return ended(() => get(t.client));
    },
    rejects: (error) => expect(error).toBeInstanceOf(NotFoundError),
  },
  retries_exhausted: {
    make: () => {
      t.server.on(THING, fail(503, 'INTERNAL_ERROR', { headers: { 'retry-after': '0' } }));
      return ended(() => get(t.client));
    },
    rejects: (error) => {
      expect(error).toBeInstanceOf(InternalServerError);
      expect(t.server.requestsTo(THING)).toHaveLength(2);
    },
  },
  server_wait_too_long: {
    make: async () => {
      t.server.on(THING, fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '3600' } }));
      const client = await t.connect({ maxServerWaitMs: 1000, rateLimit: false });
      return ended(() => get(client));
    },
    rejects: (error) => expect(error).toMatchObject({ constructor: RateLimitError, retryAfterSeconds: 3600 }),
  },
  retry_past_deadline: {
    make: async () => {
      // Deadline: 200 ms × 2 attempts + the slack; the ceiling allows the Retry-After, the deadline does not.
      t.server.on(THING, [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '90' } }), ok(1)]);
      const client = await t.connect({ maxServerWaitMs: 200_000, rateLimit: false, timeoutMs: 200 });
      return ended(() => get(client));
    },
    rejects: (error) => expect(error).toBeInstanceOf(RateLimitError),
  },
  deadline: {
    make: () => {
      // The monotonic clock jumps past the deadline during the re-authentication before the 401 replay.
      vi.useFakeTimers({ toFake: ['performance'], shouldAdvanceTime: true });
      t.server.on(THING, fail(401, 'UNAUTHORIZED'));
      t.server.on(TOKEN_ROUTE, (_request, count) => {
        if (count === 2) vi.advanceTimersByTime(1000 + DEADLINE_SLACK_MS);
        return tokenAnswer();
      });
      return ended(() => get(t.client, { maxRetries: 0, timeoutMs: 1000 }));
    },
    rejects: (error) => expect(error).toMatchObject({ constructor: TimeoutError, requestNotSent: true }),
  },
  rate_limit_wait_past_deadline: {
    make: async () => {
      // The route's one slot frees up a window (100 s) after the first answer, past the second call's deadline.
      const client = await t.connect({ timeoutMs: 1000, maxRetries: 0, rateLimit: { endpoints: { [THING]: { limit: 1, windowMs: 100_000 } } } });
      t.server.on(THING, ok(1));
      await get(client);
      return ended(() => get(client));
    },
    rejects: (error) => expect(error).toMatchObject({ constructor: TimeoutError, requestNotSent: true }),
  },
  original_in_flight: {
    make: () => {
      // The clock jumps past the deadline once a retry met the 409 of the original still in progress.
      vi.useFakeTimers({ toFake: ['performance'], shouldAdvanceTime: true });
      t.server.on(WRITE, (_request, count) => (count === 1 ? { hang: true } : fail(409, 'CONFLICT', { message: 'still in progress' })));
      return ended(async () => {
        const pending = t.client.request({ method: 'POST', path: '/api/v1.1/thing', body: {}, idempotencyKey: 'thing-1', timeoutMs: 100 });
        pending.catch(() => undefined);
        await vi.waitFor(() => expect(t.server.requestsTo(WRITE).length).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
        vi.advanceTimersByTime(10 * 60_000);
        return pending;
      });
    },
    rejects: (error) => expect(error).toMatchObject({ constructor: TimeoutError, mayHaveSucceeded: true }),
  },
  aborted: {
    make: () => {
      t.server.on(THING, { hang: true });
      const controller = new AbortController();
      return ended(async () => {
        const pending = get(t.client, { signal: controller.signal });
        await vi.waitFor(() => expect(t.server.requestsTo(THING)).toHaveLength(1));
        controller.abort(new Error('the caller gave up'));
        return pending;
      });
    },
    rejects: (error) => expect(error).toMatchObject({ message: 'the caller gave up' }),
  },
  token_failed: {
    make: () => {
      t.server.on(TOKEN_ROUTE, fail(401, 'UNAUTHORIZED'));
      return ended(() => get(t.client));
    },
    rejects: (error) => {
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(t.server.requestsTo(THING)).toHaveLength(0);
    },
  },
  middleware_error: {
    make: async () => {
      t.server.on(THING, ok(1));
      const client = await t.connect({
        middleware: [
          (request, next, context) => {
            // The token exchange passes; the call itself is refused.
            if (context.route === THING) throw new Error('tenant unknown');
            return next(request);
          },
        ],
      });
      return ended(() => get(client));
    },
    rejects: (error) => expect(error).toMatchObject({ message: 'tenant unknown' }),
  },
  client_closed: {
    make: async () => {
      const client = await t.connect();
      await client.close();
      return ended(() => get(client));
    },
    rejects: (error) => expect(error).toBeInstanceOf(ClientClosedError),
  },
  client_cut: {
    make: () => {
      t.server.on(THING, { hang: true });
      return ended(async () => {
        const pending = get(t.client);
        await vi.waitFor(() => expect(t.server.requestsTo(THING)).toHaveLength(1));
        await t.client.destroy();
        return pending;
      });
    },
    rejects: (error) => expect(error).toMatchObject({ constructor: ClientClosedError, requestNotSent: false }),
  },
  limiter_closed: {
    make: async () => {
      // A fleet limiter whose Redis refuses connections limits in memory (fail-open); its owner
      // closes it while the call waits there for the route's one slot.
      const limiter = new RedisRateLimiter({ redis: await refusedRedis(), endpoints: { [THING]: { limit: 1, windowMs: 30_000 } } });
      const client = await t.connect({ rateLimit: limiter, maxRetries: 0 });
      t.server.on(THING, ok(1));
      await get(client);
      return ended(async () => {
        const pending = get(client);
        await new Promise((resolve) => setTimeout(resolve, 20));
        limiter.close();
        return pending;
      });
    },
    rejects: (error) => {
      expect(error).toMatchObject({
        constructor: ClientClosedError,
        requestNotSent: true,
        message: 'the rate limiter was closed while the call waited for a slot',
      });
      expect(t.server.requestsTo(THING)).toHaveLength(1);
    },
  },
  limiter_unavailable: {
    make: async () => {
      const limiter = new RedisRateLimiter({ redis: await refusedRedis(), onStoreError: 'fail-closed' });
      const client = await t.connect({ rateLimit: limiter, maxRetries: 0 });
      t.server.on(THING, ok(1));
      // Without a token to fetch: the exchange would meet the dead store first (token_failed).
      return ended(() => get(client, { auth: false }));
    },
    rejects: (error) => {
      expect(error).toMatchObject({ constructor: ConnectionError, requestNotSent: true });
      expect(t.server.requestsTo(THING)).toHaveLength(0);
    },
  },
};

describe('why a call ended', () => {
  it('has a case for every ending it names', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(CALL_ENDS).sort());
  });

  it("is the observability guide's table of endings, row for row, in the words of the code", () => {
    const { rows } = findTable(['reason', 'the call ended because', 'it rejects with']);
    expect(rows.map(([reason = '', because = '']) => [reason, because])).toEqual(
      Object.entries(CALL_ENDS).map(([reason, because]) => [`\`${reason}\``, because]),
    );
  });

  it.each(Object.keys(cases) as CallEndReason[])(
    '%s: the diagnostics message and the span name it, and the call rejects as it says',
    async (reason) => {
      const { make, rejects } = cases[reason];
      const outcome = await make();
      rejects(outcome.error);
      if (reason === 'client_closed') {
        // Refused before it started: no message, no span; the error still says which ending it was.
        expect(outcome.end).toBeUndefined();
        expect(endOf(outcome.error)).toBe('client_closed');
        return;
      }
      expect(outcome.end).toBe(reason);
      expect(outcome.spanEnd).toBe(reason);
    },
  );
});
