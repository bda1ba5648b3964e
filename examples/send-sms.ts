/**
 * Send an SMS from one of the account's lines. Inputs are checked before sending (E.164 numbers,
 * all three fields); an operator without outbound SMS answers NotImplementedError (501).
 *
 *   TO_NUMBER=+61400999888 npx tsx examples/send-sms.ts
 *
 * In your project, import from 'mobile-partner-sdk' instead of '../src/index.js'.
 */
import { NotImplementedError, RequestValidationError } from '../src/index.js';
import { run } from './lib/connect.js';

const toNumber = process.env['TO_NUMBER'] ?? '+61400999888';

await run(async ({ client }) => {
  try {
    await client.sms.send({ fromNumber: 'my office line', toNumber, text: 'hi' });
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    console.log(`Refused before sending: ${error.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`);
  }

  for await (const sim of client.sims.list({ status: 'ACTIVE', pageSize: 100 })) {
    try {
      const sent = await client.sms.send({ fromNumber: sim.phoneNumber, toNumber, text: 'Your new line is ready.' });
      console.log(`Sent from ${sim.phoneNumber} (${sim.operator}) to ${toNumber}: ${sent.message}`);
      return;
    } catch (error) {
      if (!(error instanceof NotImplementedError)) throw error;
      console.log(`${sim.operator} has no outbound SMS (${error.code}); trying another line`);
    }
  }
  console.log('No line of the account can send SMS.');
});
