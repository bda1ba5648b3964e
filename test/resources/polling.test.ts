import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type EsimProvisioningResult,
  RequestValidationError,
  type Transaction,
  TransactionFailedError,
  TransactionHandle,
  TransactionTimeoutError,
} from '../../src/index.js';
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
    const done = await handle.wait({ pollIntervalMs: 5, onProgress: (transaction) => progress.push(transaction.status) });
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
      .transactions.wait('tx_1', { pollIntervalMs: 5 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionFailedError);
    const failed = error as TransactionFailedError;
    expect(failed.errorCode).toBe('PRICING_NOT_CONFIGURED');
    expect(failed.error).toBe('no price');
    expect(failed.transaction).toMatchObject({ transactionId: 'tx_1', status: 'FAILED' });
  });

  it('wait() gives up after timeoutMs with the last transaction seen', async () => {
    scriptTransaction([{ status: 'PENDING' }]);
    const started = Date.now();
    const error = await server
      .client()
      .transactions.wait('tx_1', { pollIntervalMs: 10, timeoutMs: 120 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionTimeoutError);
    expect((error as TransactionTimeoutError<Transaction>).lastTransaction?.status).toBe('PENDING');
    expect(Date.now() - started).toBeLessThan(1000);
    const count = polls().length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(polls()).toHaveLength(count);
  });

  it('wait() times out even while a poll hangs', async () => {
    server.handle('GET', TX_PATH, () => ({ body: envelope({ transactionId: 'tx_1', status: 'PENDING' }), delayMs: 2000 }));
    const error = await server
      .client()
      .transactions.wait('tx_1', { timeoutMs: 80 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionTimeoutError);
  });

  it('wait() rejects with the signal reason when aborted, and stops polling', async () => {
    scriptTransaction([{ status: 'PENDING' }]);
    const controller = new AbortController();
    const reason = new Error('worker shutting down');
    setTimeout(() => controller.abort(reason), 50);
    await expect(
      server.client().transactions.wait('tx_1', { pollIntervalMs: 10, signal: controller.signal }),
    ).rejects.toBe(reason);
    const count = polls().length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(polls()).toHaveLength(count);
  });

  it('wait() with an already aborted signal sends nothing', async () => {
    scriptTransaction([{ status: 'PENDING' }]);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(server.client().transactions.wait('tx_1', { signal: controller.signal })).rejects.toThrow('stop');
    expect(polls()).toHaveLength(0);
  });

  it('the delay between polls grows from pollIntervalMs', async () => {
    const times: number[] = [];
    server.handle('GET', TX_PATH, () => {
      times.push(performance.now());
      return { body: envelope({ transactionId: 'tx_1', status: times.length >= 5 ? 'COMPLETED' : 'PENDING' }) };
    });
    await server.client().transactions.wait('tx_1', { pollIntervalMs: 20 });
    const gaps = times.slice(1).map((time, index) => time - (times[index] ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(18);
    expect(gaps[3]).toBeGreaterThan(gaps[0] ?? 0);
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
    await expect(handle.wait({ pollIntervalMs: 5 })).resolves.toMatchObject({ status: 'COMPLETED' });
  });
});
