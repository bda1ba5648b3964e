/**
 * The node:diagnostics_channel channels: one start and one end or error message per SDK call,
 * with the route template, never a secret or a concrete path; nothing published without a subscriber.
 */
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import {
  NotFoundError,
  REQUEST_END_CHANNEL,
  REQUEST_ERROR_CHANNEL,
  REQUEST_START_CHANNEL,
  type RequestEndMessage,
  type RequestErrorMessage,
  type RequestStartMessage,
} from '../../src/index.js';
import { useSandbox } from '../e2e/sandbox.js';

const run = useSandbox({}, {}, { auditSpans: false });

interface Seen {
  start: RequestStartMessage[];
  end: RequestEndMessage[];
  error: RequestErrorMessage[];
}

const unsubscribers: Array<() => void> = [];

function listen(): Seen {
  const seen: Seen = { start: [], end: [], error: [] };
  const on = <K extends keyof Seen>(name: string, into: K): void => {
    const handler = (message: unknown): void => {
      (seen[into] as unknown[]).push(message);
    };
    diagnostics.subscribe(name, handler);
    unsubscribers.push(() => diagnostics.unsubscribe(name, handler));
  };
  on(REQUEST_START_CHANNEL, 'start');
  on(REQUEST_END_CHANNEL, 'end');
  on(REQUEST_ERROR_CHANNEL, 'error');
  return seen;
}

afterEach(() => {
  for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
});

describe('diagnostics channels', () => {
  it('publish a start and an end per call, the token exchange included, with the route template', async () => {
    const { client, sandbox } = run();
    const seen = listen();
    const iccid = sandbox.fixtures.activeSubscriptionIccid;
    await client.sims.retrieveSubscription(iccid);
    const routes = seen.start.map((message) => [message.request.kind, message.request.route]);
    expect(routes).toEqual([
      ['api', 'GET /api/v1.1/sims/{iccid}/subscription'],
      ['token', 'POST /api/v1.1/auth/token'],
    ]);
    expect(seen.end.map((message) => message.request.route).sort()).toEqual(['GET /api/v1.1/sims/{iccid}/subscription', 'POST /api/v1.1/auth/token']);
    const sim = seen.end.find((message) => message.request.kind === 'api');
    expect(sim).toMatchObject({ status: 200, attempts: 1, replayed: false, request: { method: 'GET', origin: sandbox.url, idempotencyKey: false } });
    expect(sim?.durationMs).toBeGreaterThanOrEqual(0);
    // The same request object in start and end: a subscriber can keep state on it.
    expect(seen.start.find((message) => message.request.kind === 'api')?.request).toBe(sim?.request);
    expect(seen.error).toEqual([]);
    // Nothing identifies the subscriber or the account.
    const text = JSON.stringify(seen);
    for (const secret of [iccid, sandbox.key, sandbox.secret]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/Bearer|access_token/);
  });

  it('publish an error with the typed error and the last status for a failed call', async () => {
    const { client } = run();
    await client.sims.list({ pageSize: 1 });
    const seen = listen();
    const failure = await client.sims.retrieveSubscription('8900000000000000000').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotFoundError);
    expect(seen.end).toEqual([]);
    expect(seen.error).toHaveLength(1);
    expect(seen.error[0]).toMatchObject({ error: failure, status: 404, attempts: 1, request: { route: 'GET /api/v1.1/sims/{iccid}/subscription' } });
  });

  it('count the retries of a call in attempts', async () => {
    const { client, sandbox } = run();
    await client.sims.list({ pageSize: 1 });
    sandbox.force({ method: 'GET', path: '/api/v1.1/sims', status: 503, code: 'SERVICE_UNAVAILABLE', message: 'busy', times: 1 });
    const seen = listen();
    await client.sims.list({ pageSize: 1 });
    expect(seen.end).toHaveLength(1);
    expect(seen.end[0]).toMatchObject({ status: 200, attempts: 2 });
  });

  it('publish nothing and start no observation when nobody subscribes', async () => {
    const { client } = run();
    const seen: unknown[] = [];
    const channel = diagnostics.channel(REQUEST_START_CHANNEL);
    expect(channel.hasSubscribers).toBe(false);
    await client.sims.list({ pageSize: 1 });
    // A subscriber added afterwards sees only the calls made after it.
    const handler = (message: unknown): void => void seen.push(message);
    diagnostics.subscribe(REQUEST_START_CHANNEL, handler);
    unsubscribers.push(() => diagnostics.unsubscribe(REQUEST_START_CHANNEL, handler));
    await client.sims.list({ pageSize: 1 });
    expect(seen).toHaveLength(1);
  });
});
