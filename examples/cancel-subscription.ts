/**
 * Cancel a subscription at the end of its billing period. The call carries an Idempotency-Key
 * (generated), so a retried cancel never cancels twice; cancelling again is a ConflictError.
 *
 *   npx tsx examples/cancel-subscription.ts [iccid]
 *
 * In your project, import from 'mobile-partner-sdk' instead of '../src/index.js'.
 */
import { ConflictError } from '../src/index.js';
import { run } from './lib/connect.js';

await run(async ({ client }) => {
  let iccid = process.argv[2];
  if (!iccid) {
    // The default filter ACTIVE also returns PENDING and CANCEL_SCHEDULED: pick a truly active one.
    for await (const subscription of client.subscriptions.list({ status: 'ACTIVE', pageSize: 50 })) {
      if (subscription.status === 'ACTIVE') {
        iccid = subscription.iccid;
        break;
      }
    }
  }
  if (!iccid) {
    console.log('No active subscription to cancel.');
    return;
  }
  const before = await client.sims.retrieveSubscription(iccid);
  console.log(`SIM ${iccid}: "${before.productName}" is ${before.status}, period ends ${before.endDate ?? 'never'}`);

  const cancellation = await client.subscriptions.cancel(iccid);
  console.log(`Cancelled: status ${cancellation.status}, effective ${cancellation.cancelledDate}`);

  try {
    await client.subscriptions.cancel(iccid);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    console.log(`Cancelling again is refused: ${error.status} ${error.code}`);
  }
});
