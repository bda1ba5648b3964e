import { describe, expectTypeOf, it } from 'vitest';
import type { CompletedTransaction, EsimProvisioningResult, PartnerClient, Transaction, TransactionHandle } from '../../src/index.js';

declare const client: PartnerClient;
declare const handle: TransactionHandle<EsimProvisioningResult>;

describe('the eSIM provisioning result', () => {
  it('is present and whole after wait()', async () => {
    const done = await handle.wait();
    expectTypeOf(done).toEqualTypeOf<CompletedTransaction<EsimProvisioningResult>>();
    expectTypeOf(done.result).toEqualTypeOf<EsimProvisioningResult>();
    expectTypeOf(done.result.mdn).toEqualTypeOf<string>();
    expectTypeOf(done.result.iccid).toEqualTypeOf<string>();
    expectTypeOf(done.result.qrCode).toEqualTypeOf<string>();
    expectTypeOf(done.status).toEqualTypeOf<'COMPLETED'>();
  });

  it('may be partial or absent before COMPLETED', async () => {
    const now = await handle.retrieve();
    expectTypeOf(now).toEqualTypeOf<Transaction<EsimProvisioningResult>>();
    expectTypeOf(present(now.result).mdn).toEqualTypeOf<string | undefined>();
    // @ts-expect-error a poll's result may be missing
    const result: EsimProvisioningResult = now.result;
    void result;
  });

  it('the handle of esim.provision is typed by the result', () => {
    expectTypeOf(client.esim.provision({})).resolves.toEqualTypeOf<TransactionHandle<EsimProvisioningResult>>();
  });

  it('results that are not shown stay unknown, also after wait()', async () => {
    const topUp = await (await client.billing.topUp({})).wait();
    expectTypeOf(topUp.result).toEqualTypeOf<unknown>();
    const byId = await client.transactions.wait('tx');
    expectTypeOf(byId.result).toEqualTypeOf<unknown>();
  });
});

function present<T>(value: T): NonNullable<T> {
  return value as NonNullable<T>;
}
