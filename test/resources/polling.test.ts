import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClientClosedError,
  type EsimProvisioningResult,
  RequestValidationError,
  type Transaction,
  TransactionFailedError,
  TransactionHandle,
  TransactionTimeoutError,
} from '../../src/index.js';
import { installFakeClock, settleOnFakeClock } from '../helpers/clock.js';
import { settlesAtOnce } from '../helpers/server-client.js';
import { type ResourcesServer, envelope, startResourcesServer } from '../helpers/resources-server.js';

let server: ResourcesServer;
beforeEach(async () => {
  server = await startResourcesServer();
});
afterEach(async () => {
  await server.close();
});

const TX_PATH = '/api/v3/transactions/tx_1';
const polls = () => server.requests.filter((request) => request.path === TX_PATH);

/** Answers the given statuses in order (the last repeats), always with HTTP 200. */
function scriptTransaction(statuses: Array<Partial<Transaction> & { status: string }>): void {
  let index = 0;
  server.handle('GET', TX_PATH, () => {
    const step = statuses[Math.min(index, statuses.length - 1)];
    index += 1;
    return { body: envelope({ transactionId: 'tx_1', timestamp: new Date().toISOString(), ...step }) };
  });
}

function acceptProvisioning(): void {
  server.handle('POST', '/api/v1.1/esim', () => ({
    status: 202,
    body: envelope({ transactionId: 'tx_1', statusEndpoint: TX_PATH, message: 'accepted' }),
  }));
}

describe('async operations', () => {
  it('esim.provision resolves to a handle exposing the acceptance answer', async () => {
    acceptProvisioning();
    const handle = await server.client().esim.provision({ planId: 'Travel 5GB' });
    expect(handle).toBeInstanceOf(TransactionHandle);
    expect(handle.transactionId).toBe('tx_1');
    expect(handle.statusEndpoint).toBe(TX_PATH);
    expect(handle.acceptance).toMatchObject({ message: 'accepted' });
    const sent = server.requests.find((request) => request.path === '/api/v1.1/esim');
    expect(sent?.body).toEqual({ planId: 'Travel 5GB' });
    expect(sent?.headers['idempotency-key']).toEqual(expect.any(String));
  });

  it('wait() polls without a bearer through non-terminal statuses and resolves with the typed result', async () => {
    acceptProvisioning();
    scriptTransaction([
      { status: 'PENDING' },
      { status: 'PROCESSING' },
      { status: 'PROCESSING' },
      { status: 'COMPLETED', result: { mdn: '+14155550100', iccid: '8901', qrCode: 'LPA:1$x$y' } },
    ]);
    const progress: string[] = [];
    const handle = await server.client().esim.provision({ planId: 'p' });
    const done = await handle.wait({ pollIntervalMs: 100, onProgress: (transaction) => progress.push(transaction.status) });
    expect(done.status).toBe('COMPLETED');
    const result: EsimProvisioningResult | null | undefined = done.result;
    expect(result).toEqual({ mdn: '+14155550100', iccid: '8901', qrCode: 'LPA:1$x$y' });
    expect(progress).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(polls()).toHaveLength(4);
    expect(polls().every((request) => request.headers.authorization === undefined)).toBe(true);
  });

  it('wait() rejects with TransactionFailedError on FAILED answered with HTTP 200', async () => {
    scriptTransaction([{ status: 'PENDING' }, { status: 'FAILED', errorCode: 'PRICING_NOT_CONFIGURED', error: 'no price' }]);
    const error = await server
      .client()
      .transactions.wait('tx_1', { pollIntervalMs: 100 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionFailedError);
    const failed = error as TransactionFailedError;
    expect(failed.errorCode).toBe('PRICING_NOT_CONFIGURED');
    expect(failed.error).toBe('no price');
    expect(failed.transaction).toMatchObject({ transactionId: 'tx_1', status: 'FAILED' });
  });

  it('wait() gives up after timeoutMs with the last transaction seen', async () => {
    scriptTransaction([{ status: 'PENDING' }]);
    installFakeClock();
    try {
      const error = await settleOnFakeClock(server.client().transactions.wait('tx_1', { pollIntervalMs: 100, timeoutMs: 300 })).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(TransactionTimeoutError);
      expect((error as TransactionTimeoutError).lastTransaction?.status).toBe('PENDING');
      expect(error).toMatchObject({
        lastStatus: 'PENDING',
        message:
          'transaction "tx_1" did not finish within 300 ms (last status PENDING); it may still finish: wait again with client.transactions.wait("tx_1")',
      });
      expect(JSON.parse(JSON.stringify(error))).toMatchObject({ transactionId: 'tx_1', lastStatus: 'PENDING' });
      // Real turns for a poll already on the wire to land, then many poll intervals on the fake clock: nothing more was sent.
      for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
      const count = polls().length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(polls()).toHaveLength(count);
    } finally {
      vi.useRealTimers();
    }
  });

  it('wait() times out even while a poll hangs', async () => {
    server.handle('GET', TX_PATH, () => ({ body: envelope({ transactionId: 'tx_1', status: 'PENDING' }), delayMs: 2000 }));
    const error = await server
      .client()
      .transactions.wait('tx_1', { timeoutMs: 80 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionTimeoutError);
    expect((error as Error).message).toMatch(/\(no poll answered\); it may still finish: wait again with client\.transactions\.wait\("tx_1"\)$/);
  });

  it('wait() rejects with the signal reason when aborted, and stops polling', async () => {
    scriptTransaction([{ status: 'PENDING' }]);
    installFakeClock();
    try {
      const controller = new AbortController();
      const reason = new Error('worker shutting down');
      const waiting = server.client().transactions.wait('tx_1', { pollIntervalMs: 100, signal: controller.signal });
      waiting.catch(() => undefined);
      // The first poll has reached the server; the abort comes before the next one is due.
      while (polls().length === 0) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(50);
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      // A hundred poll intervals later on the fake clock: nothing more was sent.
      await vi.advanceTimersByTimeAsync(10_000);
      expect(polls()).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('wait() with an already aborted signal sends nothing', async () => {
    scriptTransaction([{ status: 'PENDING' }]);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(server.client().transactions.wait('tx_1', { signal: controller.signal })).rejects.toThrow('stop');
    expect(polls()).toHaveLength(0);
  });

  it('transactions.retrieve() returns one poll, and a blank id is refused before sending', async () => {
    scriptTransaction([{ status: 'PENDING', message: 'queued' }]);
    const client = server.client();
    await expect(client.transactions.retrieve('tx_1')).resolves.toMatchObject({ status: 'PENDING', message: 'queued' });
    await expect(client.transactions.retrieve('  ')).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client.transactions.wait('')).rejects.toBeInstanceOf(RequestValidationError);
    expect(server.requests).toHaveLength(1);
  });

  it('portIns.submit reads the acceptance outside the envelope', async () => {
    server.handle('POST', '/api/v3/port-in', () => ({ status: 202, body: { transactionId: 'tx_1', statusEndpoint: TX_PATH } }));
    scriptTransaction([{ status: 'COMPLETED', result: { portInNumber: '+14155550123' } }]);
    const handle = await server.client().portIns.submit({ portInNumber: '+14155550123', iccid: '8901' });
    await expect(handle.wait({ pollIntervalMs: 100 })).resolves.toMatchObject({ status: 'COMPLETED' });
  });
});

describe('polls go through the transport', () => {
  it('a poll answered 503 or 429 is retried like any GET, and the wait carries on', async () => {
    const answers = [
      { status: 503, body: { success: false, error: { code: 'INTERNAL_ERROR', message: 'busy' } } },
      { status: 429, body: { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } }, headers: { 'retry-after': '0' } },
      { body: envelope({ transactionId: 'tx_1', status: 'COMPLETED', result: {} }) },
    ];
    server.handle('GET', TX_PATH, () => answers.shift() ?? { status: 500, body: {} });
    const done = await server.client({ maxRetries: 2 }).transactions.wait('tx_1', { pollIntervalMs: 100 });
    expect(done.status).toBe('COMPLETED');
    expect(polls()).toHaveLength(3);
  });

  it("polls wait for the client's rate limiter", async () => {
    scriptTransaction([{ status: 'PENDING' }, { status: 'PENDING' }, { status: 'COMPLETED' }]);
    installFakeClock();
    try {
      const client = server.client({
        rateLimit: { endpoints: { 'GET /api/v3/transactions/{transactionId}': { limit: 1, windowMs: 150 } } },
      });
      const started = performance.now();
      await settleOnFakeClock(client.transactions.wait('tx_1', { pollIntervalMs: 100 }));
      // three polls at one per 150 ms window: the third cannot start before 300 ms
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
      expect(polls()).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('close() and destroy() during wait()', () => {
  it.each([
    ['destroy', 'the client was destroyed'],
    ['close', 'the client was closed'],
  ] as const)('%s() ends a wait() sleeping between polls at once, with ClientClosedError, and nothing more is polled', async (how, why) => {
    acceptProvisioning();
    scriptTransaction([{ status: 'PENDING' }]);
    const client = server.client();
    const handle = await client.esim.provision({ planId: 'p' });
    // A minute between polls: the wait sleeps through the whole test unless the client ends it.
    const waiting = handle.wait({ pollIntervalMs: 60_000 });
    waiting.catch(() => undefined);
    while (polls().length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The poll's answer arrives and the wait goes to sleep.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const closing = how === 'destroy' ? client.destroy() : client.close();
    expect(await settlesAtOnce(waiting)).toBe(true);
    const error = await waiting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ClientClosedError);
    expect((error as Error).message).toBe(`wait for transaction tx_1: ${why} while the wait slept between polls`);
    await closing;
    expect(polls()).toHaveLength(1);
  });

  it('close() lets a poll in flight finish, then ends the wait before the next poll', async () => {
    acceptProvisioning();
    server.handle('GET', TX_PATH, () => ({ body: envelope({ transactionId: 'tx_1', status: 'PENDING' }), delayMs: 50 }));
    const client = server.client();
    const handle = await client.esim.provision({ planId: 'p' });
    const waiting = handle.wait({ pollIntervalMs: 60_000 }).catch((caught: unknown) => caught);
    while (polls().length === 0) await new Promise((resolve) => setImmediate(resolve));
    // close() waits for the poll in flight; the wait ends as it would go to sleep.
    await client.close();
    expect(await settlesAtOnce(waiting)).toBe(true);
    expect(await waiting).toBeInstanceOf(ClientClosedError);
    expect(polls()).toHaveLength(1);
  });

  it('transactions.wait() by id ends at once on destroy() too', async () => {
    scriptTransaction([{ status: 'PENDING' }]);
    const client = server.client();
    const waiting = client.transactions.wait('tx_1', { pollIntervalMs: 60_000 });
    waiting.catch(() => undefined);
    while (polls().length === 0) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    void client.destroy();
    expect(await settlesAtOnce(waiting)).toBe(true);
    await expect(waiting).rejects.toBeInstanceOf(ClientClosedError);
  });
});

describe('poll schedule', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /** A handle over a scripted fetcher; records the (fake) time of every poll. */
  function scheduledHandle(pendingPolls: number): { handle: TransactionHandle; times: number[] } {
    const times: number[] = [];
    const fetch = (): Promise<Transaction> => {
      times.push(Date.now());
      return Promise.resolve({ transactionId: 'tx_1', status: times.length > pendingPolls ? 'COMPLETED' : 'PENDING' });
    };
    return { handle: new TransactionHandle({ transactionId: 'tx_1', statusEndpoint: TX_PATH }, fetch), times };
  }

  const gaps = (times: number[]): number[] => times.slice(1).map((time, index) => time - (times[index] ?? 0));

  it('gives up exactly at timeoutMs, not a poll later', async () => {
    vi.useFakeTimers();
    const { handle } = scheduledHandle(Number.POSITIVE_INFINITY);
    const done = handle.wait({ pollIntervalMs: 100, timeoutMs: 300 });
    let outcome: unknown;
    done.catch((error: unknown) => (outcome = error));
    await vi.advanceTimersByTimeAsync(299);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBeInstanceOf(TransactionTimeoutError);
    expect(outcome).toMatchObject({ timeoutMs: 300, lastTransaction: { status: 'PENDING' } });
  });

  it('backs off ×1.5 from pollIntervalMs up to maxPollIntervalMs, with up to 20 % jitter added', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const { handle, times } = scheduledHandle(6);
    const done = handle.wait({ pollIntervalMs: 100, maxPollIntervalMs: 300 });
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(done).resolves.toMatchObject({ status: 'COMPLETED' });
    // 100, 150, 225, then the 300 ceiling; each ×1.1 for the mocked half of the 20 % jitter, rounded up to
    // a whole ms (a wait never ends early: 100 × 1.1 is 110.00000000000001 in floating point)
    expect(gaps(times).map((gap) => Math.round(gap))).toEqual([111, 165, 248, 330, 330, 330]);
  });

  it('jitter spreads the delays between the interval and 20 % above it', async () => {
    vi.useFakeTimers();
    const random = vi.spyOn(Math, 'random');
    random.mockReturnValueOnce(0).mockReturnValueOnce(0.75);
    const { handle, times } = scheduledHandle(2);
    const done = handle.wait({ pollIntervalMs: 1_000, maxPollIntervalMs: 1_000 });
    await vi.advanceTimersByTimeAsync(5_000);
    await done;
    expect(gaps(times).map((gap) => Math.round(gap))).toEqual([1_000, 1_150]);
  });
});

describe('wait options', () => {
  const bad: Array<[string, unknown]> = [
    ['timeoutMs', Number.POSITIVE_INFINITY],
    ['timeoutMs', Number.NaN],
    ['timeoutMs', 0],
    ['timeoutMs', -5],
    ['timeoutMs', 2 ** 31],
    ['timeoutMs', '5000'],
    ['timeoutMs', 5000n],
    ['pollIntervalMs', 0],
    ['pollIntervalMs', Number.NaN],
    ['pollIntervalMs', -1],
    ['pollIntervalMs', 99],
    ['pollIntervalMs', 150.5],
    ['pollIntervalMs', Number.POSITIVE_INFINITY],
    ['maxPollIntervalMs', 0],
    ['maxPollIntervalMs', 50],
    ['maxPollIntervalMs', 2 ** 32],
    ['signal', { aborted: false }],
    ['onProgress', 'log'],
  ];

  it.each(bad)('refuses %s = %o with a RequestValidationError naming it, before the first poll', async (option, value) => {
    scriptTransaction([{ status: 'PENDING' }]);
    const client = server.client();
    const fromId = await client.transactions.wait('tx_1', { [option]: value }).catch((caught: unknown) => caught);
    const handle = new TransactionHandle({ transactionId: 'tx_1', statusEndpoint: TX_PATH }, (signal) =>
      client.transactions.retrieve('tx_1', { signal }),
    );
    const fromHandle = await handle.wait({ [option]: value }).catch((caught: unknown) => caught);
    for (const error of [fromId, fromHandle]) {
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([option]);
    }
    expect(polls()).toHaveLength(0);
  });

  it('arms no timer beyond the timer range with the largest accepted values (no TimeoutOverflowWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    try {
      vi.spyOn(Math, 'random').mockReturnValue(0.99);
      const controller = new AbortController();
      let polled = 0;
      const handle = new TransactionHandle({ transactionId: 'tx_1', statusEndpoint: TX_PATH }, () => {
        polled += 1;
        return Promise.resolve({ transactionId: 'tx_1', status: 'PENDING' });
      });
      const max = 2 ** 31 - 1;
      const waiting = handle.wait({ timeoutMs: max, pollIntervalMs: max, maxPollIntervalMs: max, signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 20));
      controller.abort(new Error('done'));
      await expect(waiting).rejects.toThrow('done');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(polled).toBe(1);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      vi.restoreAllMocks();
    }
  });
});
