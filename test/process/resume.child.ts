/**
 * One step of an asynchronous operation in a process of its own, for resume.test.ts: with
 * RESUME_STEP=start it provisions an eSIM and prints the handle's resume token; with
 * RESUME_STEP=finish it resumes RESUME_TOKEN and prints the completed transaction as JSON.
 */
import { PartnerClient } from '../../src/index.js';

const client = new PartnerClient({
  baseUrl: process.env['RESUME_BASE_URL'],
  key: process.env['RESUME_KEY'],
  secret: process.env['RESUME_SECRET'],
});
try {
  if (process.env['RESUME_STEP'] === 'start') {
    const handle = await client.esim.provision({ planId: process.env['RESUME_PLAN_ID'] ?? '' });
    process.stdout.write(`${handle.resumeToken}\n`);
  } else {
    const done = await client.transactions.resume(process.env['RESUME_TOKEN'] ?? '', 'esim.provision').wait({ pollIntervalMs: 100 });
    process.stdout.write(`${JSON.stringify({ transactionId: done.transactionId, status: done.status, iccid: done.result.iccid })}\n`);
  }
} finally {
  await client.close();
}
