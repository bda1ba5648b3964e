import { describe, expect, it } from 'vitest';
import { ConnectionError, InternalServerError } from '../../src/index.js';
import { force, useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 7 }, { maxRetries: 2 });

async function counter(name: string): Promise<number> {
  const response = await fetch(`${run().sandbox.url}/_sandbox/stats`);
  const stats = (await response.json()) as { counters: Record<string, number> };
  return stats.counters[name] ?? 0;
}

const SUBSCRIPTION_CANCEL = '/api/v1.1/subscriptions/{iccid}/cancel';

describe('an (idem) write under a generated key whose last attempt was applied but never answered', () => {
  it('says it may have been applied and names the key, and sending it again with that key applies it once', async () => {
    const { sandbox, client } = run();
    // Two attempts are cut before the server acts; the third is applied and its answer stored, then its socket is cut.
    await force(sandbox, { method: 'POST', path: SUBSCRIPTION_CANCEL, reset: true, times: 2 });
    await force(sandbox, { method: 'POST', path: SUBSCRIPTION_CANCEL, resetAfter: true });
    const iccid = sandbox.fixtures.physicalIccid;
    const error = await client.subscriptions.cancel(iccid).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    const failure = error as ConnectionError;
    expect(failure.mayHaveSucceeded).toBe(true);
    expect(failure.idempotencyKey).toEqual(expect.any(String));
    expect(failure.message).toContain(`idempotencyKey '${failure.idempotencyKey}'`);
    expect(failure.toJSON()).toMatchObject({ mayHaveSucceeded: true, idempotencyKey: failure.idempotencyKey });
    expect(await counter('subscriptions.cancel')).toBe(1);

    const replay = await client.subscriptions.cancel(iccid, { idempotencyKey: failure.idempotencyKey }).withResponse();
    expect(replay.response.idempotencyReplayed).toBe(true);
    expect(await counter('subscriptions.cancel')).toBe(1);
  });

  it("names the key on a final 5xx too, the caller's own key included", async () => {
    const { sandbox, client } = run();
    await force(sandbox, { method: 'POST', path: SUBSCRIPTION_CANCEL, status: 503, code: 'INTERNAL_ERROR', times: 3 });
    const generated = await client.subscriptions.cancel(sandbox.fixtures.physicalIccid).catch((caught: unknown) => caught);
    expect(generated).toBeInstanceOf(InternalServerError);
    expect((generated as InternalServerError).mayHaveSucceeded).toBe(true);
    expect((generated as InternalServerError).idempotencyKey).toEqual(expect.any(String));

    await force(sandbox, { method: 'POST', path: SUBSCRIPTION_CANCEL, status: 503, code: 'INTERNAL_ERROR', times: 3 });
    const own = await client.subscriptions.cancel(sandbox.fixtures.physicalIccid, { idempotencyKey: 'cancel-42' }).catch((caught: unknown) => caught);
    expect(own).toBeInstanceOf(InternalServerError);
    expect((own as InternalServerError).mayHaveSucceeded).toBe(true);
    expect((own as InternalServerError).idempotencyKey).toBe('cancel-42');
  });
});
