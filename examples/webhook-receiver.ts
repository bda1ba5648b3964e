/**
 * Receive what the service pushes: a webhook receiver (node:http, with signature verification
 * and dedupe) and a voice stream receiver on one local server, registered against a sandbox
 * started for the run. The sandbox then plays the service: a test delivery, an inbound SMS
 * (its typed control method) and a short live call.
 *
 *   npx tsx examples/webhook-receiver.ts
 *
 * In your project, import from 'mobile-partner-sdk', 'mobile-partner-sdk/webhooks' and
 * 'mobile-partner-sdk/sandbox' instead of '../src/…'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartnerClient } from '../src/index.js';
import { startSandbox } from '../src/sandbox/index.js';
import { createDeduplicator, createNodeHandler, VoiceStreamReceiver, writeWav, type WebhookEvent } from '../src/webhooks/index.js';
import { mask } from './lib/connect.js';

const sandbox = await startSandbox({ port: 0 });
const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });

// The signing secret exists only once the registration does; the handler is installed then.
let webhookHandler: ReturnType<typeof createNodeHandler> | undefined;
const server = createServer((req, res) => {
  if (!webhookHandler) {
    res.writeHead(503).end();
    return;
  }
  void webhookHandler(req, res);
});
const voice = new VoiceStreamReceiver({ path: '/voice' }).attach(server);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** The live voice stream has no in-process control method: it is started over the control API. */
async function startVoiceStream(body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sandbox.url}/_sandbox/voice-stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

try {
  const sim = (await client.sims.list({ pageSize: 1 })).data[0];
  if (!sim) throw new Error('the account has no SIM');
  const { operator, network } = sim;

  const registration = await client.webhooks.create({
    operator,
    network,
    eventType: 'sms',
    webhookUrls: { messageUrl: `${receiverUrl}/sms`, voiceStreamUrl: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/voice` },
  });
  console.log(`Registered ${registration.id} for ${operator} / ${network}; signing secret ${mask(registration.signingSecret)}`);

  const events: WebhookEvent[] = [];
  let eventArrived: () => void = () => undefined;
  webhookHandler = createNodeHandler({
    secret: registration.signingSecret,
    // SMS events carry no id (spec part 6): the message id in the body stands in for one.
    dedupe: createDeduplicator({ key: (event) => (event.type === 'sms' ? String(event.data['messageId']) : undefined) }),
    onEvent: (event) => {
      events.push(event);
      eventArrived();
    },
    onError: (error) => console.error('refused a delivery:', error),
  });
  const nextEvent = (): Promise<WebhookEvent> =>
    new Promise((resolve) => {
      eventArrived = () => resolve(events.at(-1) as WebhookEvent);
    });

  const testArrived = nextEvent();
  const test = await client.webhooks.test(registration.id);
  const testEvent = await testArrived;
  console.log(`Test delivery ${test.deliveryId}: ${test.status}; received ${testEvent.type}, signed at ${testEvent.delivery.timestamp}`);

  const smsArrived = nextEvent();
  sandbox.sendSmsEvent({ operator, network, text: 'Hello from a customer' });
  const sms = await smsArrived;
  if (sms.type === 'sms') console.log(`Inbound SMS (${sms.name}) from ${String(sms.data['from'])}: "${String(sms.data['text'])}"`);

  const nextCall = voice.calls().next();
  const streamed = startVoiceStream({ operator, network, durationMs: 500 });
  const call = await nextCall;
  if (call.done) throw new Error('no voice stream arrived');
  const wavPath = join(tmpdir(), `voice-${Date.now()}.wav`);
  const samples = await writeWav(wavPath, call.value.audio());
  const handshake = await call.value.handshake;
  console.log(`Voice stream ${String(handshake?.['callId'])}: ${samples} samples (${samples / 8000} s at 8 kHz) written to ${wavPath}`);
  console.log(`The sandbox says it sent ${String((await streamed)['samplesSent'])} samples`);

  for await (const delivery of client.webhooks.deliveries.list({ webhookId: registration.id })) {
    console.log(
      `  delivery ${delivery.deliveryId} ${delivery.eventType}: ${delivery.status} ${delivery.responseCode} after ${delivery.attempt} attempt(s)`,
    );
  }
} finally {
  await voice.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await client.close();
  await sandbox.close();
}
