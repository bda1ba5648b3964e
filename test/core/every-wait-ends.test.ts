/**
 * Every wait of a call ends the moment the client is destroyed or the caller's signal aborts:
 * the token exchange, the wait after a 409 for a keyed write's original still in progress, and a
 * `for await` over a list with its next page in flight. (The backoff and Retry-After waits and
 * the rate limiter's queue: close.test.ts and timeouts.test.ts; a wait() between polls:
 * polling.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { ClientClosedError, type PartnerClient } from '../../src/index.js';
import { TOKEN_ROUTE, fail, ok } from '../helpers/server.js';
import { settlesAtOnce, useTestServer } from '../helpers/server-client.js';

const t = useTestServer();
const WRITE = 'POST /api/v1.1/thing';
const SIMS = 'GET /api/v1.1/sims';

/** Turns the event loop until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** How the test ends a waiting call: the client's destroy(), or the call's own signal. */
type Ending = 'destroy' | 'signal';

async function end(how: Ending, client: PartnerClient, controller: AbortController): Promise<void> {
  if (how === 'destroy') await client.destroy();
  else controller.abort(new Error('caller gave up'));
}

function expectEndedBy(how: Ending, error: unknown): void {
  if (how === 'destroy') expect(error).toBeInstanceOf(ClientClosedError);
  else expect((error as Error).message).toBe('caller gave up');
}

describe.each<Ending>(['destroy', 'signal'])('ended by %s', (how) => {
  it('a call waiting for the token exchange', async () => {
    t.server.on(TOKEN_ROUTE, { hang: true });
    const client = await t.connect({ timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = client.request({ method: 'GET', path: '/api/v1.1/thing', signal: controller.signal });
    pending.catch(() => undefined);
    await until(() => t.server.exchanges === 1);
    const ending = end(how, client, controller);
    expect(await settlesAtOnce(pending)).toBe(true);
    expectEndedBy(how, await pending.catch((caught: unknown) => caught));
    await ending;
    expect(t.server.requests.filter((request) => request.route !== TOKEN_ROUTE)).toHaveLength(0);
  });

  it('a keyed write waiting for its original, still in progress, to be replayed', async () => {
    // The first attempt times out on the client, the server still works on it: the retry meets a 409.
    t.server.on(WRITE, (_request, count) => (count === 1 ? { hang: true } : fail(409, 'CONFLICT', { message: 'still in progress' })));
    const asked: string[] = [];
    const silent = (): void => undefined;
    const client = await t.connect({
      maxRetries: 1,
      logLevel: 'info',
      logger: { debug: silent, warn: silent, error: silent, info: (line: string) => void asked.push(line) },
    });
    await client.auth.token();
    const controller = new AbortController();
    const pending = client.request({
      method: 'POST',
      path: '/api/v1.1/thing',
      body: {},
      idempotencyKey: 'w-1',
      timeoutMs: 100,
      signal: controller.signal,
    });
    pending.catch(() => undefined);
    await until(() => asked.some((line) => line.includes('still in progress')));
    const ending = end(how, client, controller);
    expect(await settlesAtOnce(pending)).toBe(true);
    const error = await pending.catch((caught: unknown) => caught);
    expectEndedBy(how, error);
    if (how === 'destroy') expect(error).toMatchObject({ requestNotSent: false, mayHaveSucceeded: true });
    await ending;
    // Past the first wait for the original (250 ms): nothing more was sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(t.server.requestsTo(WRITE)).toHaveLength(2);
  });

  it('a for-await over a list whose next page is in flight', async () => {
    t.server.on(SIMS, (request) =>
      request.path.includes('page=2')
        ? { hang: true }
        : ok([{ iccid: '8901' }, { iccid: '8902' }], { meta: { page: 1, pageSize: 2, total: 4, totalPages: 2 } }),
    );
    // The items' shapes are not what this test is about.
    const client = await t.connect({ timeoutMs: 60_000, validateResponses: 'off' });
    const controller = new AbortController();
    const iccids: string[] = [];
    const walking = (async () => {
      for await (const item of client.sims.list({ pageSize: 2 }, { signal: controller.signal })) iccids.push(item.iccid);
    })();
    walking.catch(() => undefined);
    // Page 2 is prefetched while the loop holds page 1.
    await until(() => t.server.requestsTo(SIMS).length === 2);
    const ending = end(how, client, controller);
    expect(await settlesAtOnce(walking)).toBe(true);
    expectEndedBy(how, await walking.catch((caught: unknown) => caught));
    await ending;
    expect(iccids).toEqual(['8901', '8902']);
  });
});
