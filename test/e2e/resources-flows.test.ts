import { describe, expect, it } from 'vitest';
import { type LoggedRequest, startSandbox } from '../../src/sandbox/index.js';
import { PartnerClient, RequestValidationError, ResponseValidationError, TransactionFailedError, TransactionTimeoutError } from '../../src/index.js';
import { force, useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 11, simCount: 260 });

const simListRequests = (): LoggedRequest[] =>
  run()
    .sandbox.requests()
    .filter((request) => request.path === '/api/v1.1/sims');

describe('auto-pagination against the sandbox', () => {
  it('walks all 260 SIMs once each across pages of 100', async () => {
    const iccids = new Set<string>();
    let count = 0;
    for await (const sim of run().client.sims.list({ pageSize: 100 })) {
      iccids.add(sim.iccid);
      count += 1;
    }
    expect(count).toBe(260);
    expect(iccids.size).toBe(260);
    expect(simListRequests().map((request) => request.query['page'] ?? '1')).toEqual(['1', '2', '3']);
  });

  it('stops fetching after an early break', async () => {
    let count = 0;
    for await (const _sim of run().client.sims.list({ pageSize: 10 })) {
      count += 1;
      if (count === 5) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    // the first page, and at most the prefetch of the second: never the other 24 pages
    expect(simListRequests().length).toBeLessThanOrEqual(2);
  });

  it('refuses bad page sizes before sending anything', async () => {
    for (const params of [{ pageSize: 0 }, { pageSize: 101 }, { page: 0 }, { page: 1.5 }]) {
      await expect(run().client.sims.list(params)).rejects.toBeInstanceOf(RequestValidationError);
    }
    expect(simListRequests()).toHaveLength(0);
  });
});

describe('waiting for transactions', () => {
  it('resolves with the COMPLETED provisioning and reports every status change', async () => {
    const handle = await run().client.esim.provision({ planId: run().sandbox.fixtures.pricedPlanId });
    const statuses: string[] = [];
    const done = await handle.wait({ pollIntervalMs: 100, onProgress: (transaction) => statuses.push(transaction.status) });
    expect(done.result?.mdn).toMatch(/^\+\d+$/);
    expect(statuses.at(-1)).toBe('COMPLETED');
    expect(new Set(statuses).size).toBe(statuses.length);
  });

  it('rejects with TransactionFailedError for a plan without pricing', async () => {
    const handle = await run().client.esim.provision({ planId: run().sandbox.fixtures.unpricedPlanId });
    const error = await handle.wait({ pollIntervalMs: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionFailedError);
    expect((error as TransactionFailedError).errorCode).toBe('PRICING_NOT_CONFIGURED');
    expect((error as TransactionFailedError).transaction.status).toBe('FAILED');
  });

  it('times out with the last status seen when the operation is slower than timeoutMs', async () => {
    const slow = await startSandbox({ port: 0, seed: 11, simCount: 20, transactionDelayMs: 60_000 });
    const slowClient = new PartnerClient({ baseUrl: slow.url, key: slow.key, secret: slow.secret, rateLimit: false });
    try {
      const handle = await slowClient.billing.topUp({ amount: 5 });
      const error = await handle.wait({ pollIntervalMs: 100, timeoutMs: 250 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TransactionTimeoutError);
      expect((error as TransactionTimeoutError).lastTransaction?.status).toBe('PENDING');
    } finally {
      await slowClient.close();
      await slow.close();
    }
  });

  it('rejects with the signal reason when aborted, from an id alone', async () => {
    const handle = await run().client.plans.purchaseAsync({
      planId: run().sandbox.fixtures.pricedPlanId,
      iccid: run().sandbox.fixtures.physicalIccid,
    });
    const controller = new AbortController();
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(run().client.transactions.wait(handle.transactionId, { signal: controller.signal })).rejects.toBe(reason);
    const resumed = await run().client.transactions.wait(handle.transactionId, { pollIntervalMs: 100 });
    expect(resumed.status).toBe('COMPLETED');
  });
});

describe('forward compatibility and broken answers', () => {
  const sim = {
    iccid: '8961000000000000001',
    phoneNumber: '+61400000001',
    status: 'ACTIVE',
    assignedStatus: 'UNASSIGNED',
    isEsim: true,
    operator: 'Optus',
    network: 'Optus 5G',
    operatorStatus: 'Connected',
    assignedTo: null,
    device: null,
    group: null,
    createdAt: '2024-01-01T00:00:00.000Z',
  };

  it('keeps unknown fields and accepts a new status value', async () => {
    await force(run().sandbox, {
      method: 'GET',
      path: '/api/v1.1/sims',
      status: 200,
      body: {
        success: true,
        data: [{ ...sim, status: 'SUSPENDED', esimProfile: { state: 'installed' } }],
        meta: { page: 1, pageSize: 20, total: 1, totalPages: 1 },
      },
    });
    const page = await run().client.sims.list();
    expect(page.data[0]?.status).toBe('SUSPENDED');
    // Kept at runtime; the type names the declared fields only, so the read goes through a cast.
    expect((page.data[0] as Record<string, unknown> | undefined)?.['esimProfile']).toEqual({ state: 'installed' });
  });

  it('a missing required field is a ResponseValidationError with its path', async () => {
    const { iccid: _dropped, ...withoutIccid } = sim;
    await force(run().sandbox, {
      method: 'GET',
      path: '/api/v1.1/sims',
      status: 200,
      body: { success: true, data: [sim, withoutIccid], meta: { page: 1, pageSize: 20, total: 2, totalPages: 1 } },
    });
    const error = await run()
      .client.sims.list()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.path)).toEqual(['1.iccid']);
    expect((error as ResponseValidationError).route).toBe('GET /api/v1.1/sims');
  });

  it("validateResponses: 'off' hands the broken answer through", async () => {
    const trusting = new PartnerClient({
      baseUrl: run().sandbox.url,
      key: run().sandbox.key,
      secret: run().sandbox.secret,
      rateLimit: false,
      validateResponses: 'off',
    });
    try {
      await force(run().sandbox, {
        method: 'GET',
        path: '/api/v1.1/credit-balance',
        status: 200,
        body: { success: true, data: { creditBalance: 'none' } },
      });
      await expect(trusting.billing.retrieveCreditBalance()).resolves.toEqual({ creditBalance: 'none' });
    } finally {
      await trusting.close();
    }
  });
});
