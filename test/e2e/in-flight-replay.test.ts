import { describe, expect, it } from 'vitest';
import { force, partnerRequests, useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 5 }, { maxRetries: 2 });

async function counter(name: string): Promise<number> {
  const response = await fetch(`${run().sandbox.url}/_sandbox/stats`);
  const stats = (await response.json()) as { counters: Record<string, number> };
  return stats.counters[name] ?? 0;
}

describe('a keyed retry that meets its own original still in flight (409 CONFLICT)', () => {
  it("waits with the same key until the original answer is replayed: one eSIM, the original's transaction", async () => {
    const { sandbox, client } = run();
    // The original is held 700 ms by the sandbox; the client gives up on it after 150 ms and retries.
    await force(sandbox, { method: 'POST', path: '/api/v1.1/esim', delayMs: 700 });
    const started = sandbox.requests().length;
    const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId }, { idempotencyKey: 'order-9-esim', timeoutMs: 150 });
    const sent = partnerRequests(sandbox, started).filter((request) => request.path === '/api/v1.1/esim');
    // the original, at least one retry answered 409 in flight, and the replay
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(await counter('esim.provision')).toBe(1);
    expect(await counter('idempotency.replayed')).toBe(1);
    expect(handle.transactionId).toEqual(expect.any(String));
    await expect(client.transactions.retrieve(handle.transactionId)).resolves.toMatchObject({ transactionId: handle.transactionId });
  });

  it('does the same for an (idem) route with a generated key: the subscription is cancelled once', async () => {
    const { sandbox, client } = run();
    await force(sandbox, { method: 'POST', path: '/api/v1.1/subscriptions/{iccid}/cancel', delayMs: 600 });
    const result = await client.subscriptions.cancel(sandbox.fixtures.physicalIccid, { timeoutMs: 150 });
    expect(result).toBeDefined();
    expect(await counter('subscriptions.cancel')).toBe(1);
  });

  it("a caller's abort ends the wait for the original at once", async () => {
    const { sandbox, client } = run();
    await force(sandbox, { method: 'POST', path: '/api/v1.1/esim', delayMs: 3_000 });
    const controller = new AbortController();
    const pending = client.esim.provision(
      { planId: sandbox.fixtures.pricedPlanId },
      { idempotencyKey: 'order-10-esim', timeoutMs: 100, maxRetries: 1, signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('shutting down')), 900);
    await expect(pending).rejects.toThrow('shutting down');
    const sent = partnerRequests(sandbox).filter((request) => request.path === '/api/v1.1/esim');
    expect(sent.length).toBeGreaterThanOrEqual(2);
  });
});
