import { describe, expect, it } from 'vitest';
import { ResponseValidationError } from '../../src/index.js';
import { envelope } from '../helpers/resources-server.js';
import { useResourcesServer } from './use-server.js';

/**
 * The COMPLETED result of eSIM provisioning carries mdn, iccid and qrCode (spec part 2); before
 * that the result is not shown, so its fields may be missing.
 */
const use = useResourcesServer();
const accepted = { transactionId: 'tx_esim', statusEndpoint: '/api/v3/transactions/tx_esim' };
const complete = { mdn: '+61451000266', iccid: '8961000000000000001', qrCode: 'LPA:1$smdp.example$ABC' };

function poll(...results: Array<{ status: string; result?: unknown }>): void {
  use().server.handle('POST', '/api/v1.1/esim', () => ({ status: 202, body: envelope(accepted) }));
  let count = 0;
  use().server.handle('GET', '/api/v3/transactions/tx_esim', () => {
    const answer = results[Math.min(count, results.length - 1)];
    count += 1;
    return { body: envelope({ transactionId: 'tx_esim', ...answer }) };
  });
}

describe('eSIM provisioning results', () => {
  it('waits through a partial pending result, then resolves with the whole result', async () => {
    poll({ status: 'PROCESSING', result: { iccid: complete.iccid } }, { status: 'COMPLETED', result: complete });
    const handle = await use().client.esim.provision({ planId: 'Business 5GB' });
    const pending = await handle.retrieve();
    expect(pending.result).toEqual({ iccid: complete.iccid });
    const done = await handle.wait({ pollIntervalMs: 100 });
    expect(done.result).toEqual(complete);
    expect(done.result.mdn).toBe(complete.mdn);
  });

  it('a COMPLETED result without qrCode is a ResponseValidationError naming it', async () => {
    poll({ status: 'COMPLETED', result: { mdn: complete.mdn, iccid: complete.iccid } });
    const handle = await use().client.esim.provision({});
    const error = await handle.wait().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.path)).toEqual(['result.qrCode']);
  });

  it('a COMPLETED transaction without any result is a ResponseValidationError', async () => {
    poll({ status: 'COMPLETED' });
    const handle = await use().client.esim.provision({});
    await expect(handle.wait()).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('a FAILED transaction keeps whatever partial result it carries', async () => {
    poll({ status: 'FAILED', result: { iccid: complete.iccid }, errorCode: 'PRICING_NOT_CONFIGURED', error: 'no price' } as never);
    const handle = await use().client.esim.provision({});
    await expect(handle.wait()).rejects.toMatchObject({ errorCode: 'PRICING_NOT_CONFIGURED', transaction: { result: { iccid: complete.iccid } } });
  });
});
