import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { call, open } from '../helpers.js';
import { useReceivers, waitFor } from './helpers.js';

const receiver = useReceivers();
let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const noRetries = { maxAttempts: 1, backoffStrategy: 'fixed', initialDelaySeconds: 60 };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function deliveryOf(s: SandboxHandle, token: string): Promise<any> {
  return (await call(s, 'GET', '/api/v1.1/webhook-deliveries', { token })).body.data[0];
}

describe('delivery timeout', () => {
  it('gives a receiver its timeout in real time even when the sandbox clock runs 2000 times faster', async () => {
    const opened = await open({ timeScale: 2000 });
    sandbox = opened.sandbox;
    // Answers after 100 ms of real time: over 3 minutes of sandbox time, far past a scaled 10 s.
    const slow = await receiver([200]);
    slow.hold = sleep(100);
    await call(sandbox, 'POST', '/api/v1.1/webhooks', {
      token: opened.token,
      body: { operator: 'Telstra', network: 'Telstra 4G', eventType: 'sms', webhookUrls: { messageUrl: slow.url }, retryPolicy: noRetries },
    });
    await call(sandbox, 'POST', '/_sandbox/voice-quality/webhooks', { body: { url: slow.url } });
    await call(sandbox, 'POST', '/_sandbox/events/sms', { body: { operator: 'Telstra', network: 'Telstra 4G' } });
    await call(sandbox, 'POST', '/_sandbox/voice-quality/tests', { body: { iccid: sandbox.fixtures.physicalIccid } });

    await waitFor(async () => (await deliveryOf(sandbox!, opened.token)).status !== 'PENDING', 'the operator delivery to end');
    expect(await deliveryOf(sandbox, opened.token)).toMatchObject({ status: 'DELIVERED', attempt: 1, responseCode: 200 });
    const added = async () =>
      (await call(sandbox!, 'GET', '/_sandbox/voice-quality/deliveries')).body.deliveries.find((d: any) => d.attempts > 0 && d.responseCode !== 0);
    await waitFor(async () => (await added())?.status !== undefined && (await added()).status !== 'PENDING', 'the voice quality delivery to end');
    expect(await added()).toMatchObject({ status: 'DELIVERED', attempts: 1, responseCode: 200 });
    expect(slow.received).toHaveLength(2);
  });

  it('fails an attempt that gets no answer within deliveryTimeoutMs of real time', async () => {
    const opened = await open({ timeScale: 1e-6, deliveryTimeoutMs: 200 });
    sandbox = opened.sandbox;
    const silent = await receiver([200]);
    silent.hold = new Promise(() => undefined);
    await call(sandbox, 'POST', '/api/v1.1/webhooks', {
      token: opened.token,
      body: { operator: 'Telstra', network: 'Telstra 4G', eventType: 'sms', webhookUrls: { messageUrl: silent.url }, retryPolicy: noRetries },
    });
    await call(sandbox, 'POST', '/_sandbox/events/sms', { body: { operator: 'Telstra', network: 'Telstra 4G' } });
    await waitFor(() => silent.received.length === 1, 'the attempt to arrive');
    const arrived = performance.now();
    expect(await deliveryOf(sandbox, opened.token)).toMatchObject({ status: 'PENDING', attempt: 0 });
    await waitFor(async () => (await deliveryOf(sandbox!, opened.token)).attempt === 1, 'the timeout');
    expect(performance.now() - arrived).toBeGreaterThanOrEqual(150);
    expect(await deliveryOf(sandbox, opened.token)).toMatchObject({ attempt: 1, responseCode: 0 });
  });
});
