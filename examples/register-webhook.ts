/**
 * Register the account's webhook for an operator and network, keep the one-time signing secret,
 * send a test delivery and read the delivery log.
 *
 *   WEBHOOK_URL=https://example.com/hooks npx tsx examples/register-webhook.ts
 *
 * Without WEBHOOK_URL, a receiver on 127.0.0.1 stands in for your endpoint for the run.
 *
 * In your project, import from 'mobile-partner-sdk' instead of '../src/index.js'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryFailedError } from '../src/index.js';
import { mask, run } from './lib/connect.js';

/** A stand-in partner endpoint that accepts every delivery (verify signatures in yours: see webhook-receiver.ts). */
async function localReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const receiver = process.env['WEBHOOK_URL'] ? undefined : await localReceiver();
const baseUrl = process.env['WEBHOOK_URL'] ?? receiver?.url;

await run(async ({ client }) => {
  const first = await client.sims.list({ pageSize: 1 });
  const sim = first.data[0];
  if (!sim) throw new Error('the account has no SIM');

  const registration = await client.webhooks.create({
    operator: sim.operator,
    network: sim.network,
    eventType: 'both',
    update: true,
    webhookUrls: { messageUrl: `${baseUrl}/sms`, voiceUrl: `${baseUrl}/voice` },
    retryPolicy: { maxAttempts: 5, backoffStrategy: 'exponential', initialDelaySeconds: 5, maxDelaySeconds: 300 },
  });
  // Returned only now: store it in your secret manager, then verify deliveries with it.
  console.log(`Registered ${registration.id} for ${registration.operator} / ${registration.network}`);
  console.log(`Signing secret (shown once): ${mask(registration.signingSecret)}`);

  try {
    const test = await client.webhooks.test(registration.id);
    console.log(`Test delivery ${test.deliveryId}: ${test.status} (${test.responseCode})`);
  } catch (error) {
    if (!(error instanceof DeliveryFailedError)) throw error;
    console.log(`Test delivery failed (${error.code}): is ${baseUrl} reachable?`);
  }

  for await (const delivery of client.webhooks.deliveries.list({ webhookId: registration.id })) {
    console.log(`  ${delivery.deliveryId} ${delivery.eventType} ${delivery.status} attempt ${delivery.attempt}`);
  }
  const stored = await client.webhooks.retrieve(registration.id);
  console.log(`Status: ${stored.status}; read answers never repeat the secret: ${'signingSecret' in stored ? 'present!' : 'absent'}`);
});
await receiver?.close();
