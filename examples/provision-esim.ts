/**
 * Provision an eSIM and wait for it: the call answers at once with a transaction, and
 * `wait()` polls it (with backoff) until COMPLETED, reporting each status change.
 *
 *   PLAN_ID="Business 5GB" npx tsx examples/provision-esim.ts
 *
 * In your project, import from 'mobile-partner-sdk' instead of '../src/index.js'.
 */
import { TransactionFailedError, TransactionTimeoutError } from '../src/index.js';
import { run } from './lib/connect.js';

const planId = process.env['PLAN_ID'] ?? 'Business 5GB';

await run(async ({ client }) => {
  const plan = await client.plans.retrieve(planId);
  console.log(`Plan "${plan.productId}": ${plan.data.value} ${plan.data.unit}, ${plan.validityDays} days, ${plan.price} ${plan.currency}`);

  const handle = await client.esim.provision({ planId });
  console.log(`Provisioning accepted as transaction ${handle.transactionId}`);
  try {
    const done = await handle.wait({
      timeoutMs: 60_000,
      onProgress: (transaction) => console.log(`  status: ${transaction.status}`),
    });
    const result = done.result;
    console.log(`New line ${result?.mdn} on eSIM ${result?.iccid}`);
    if (result) {
      const activation = await client.esim.retrieveQr(result.iccid);
      console.log(`Activation QR: ${activation.qrCodeUrl}`);
    }
  } catch (error) {
    if (error instanceof TransactionFailedError) console.log(`Provisioning failed: ${error.errorCode} (${error.error})`);
    else if (error instanceof TransactionTimeoutError)
      console.log(`Still running after ${error.timeoutMs} ms; resume later with client.transactions.wait('${handle.transactionId}')`);
    else throw error;
  }
});
