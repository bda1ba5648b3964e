/**
 * Webhook registrations and the delivery log against the sandbox: what the update type allows
 * is what the sandbox applies, and the delivery log is read whole however it is paged.
 */
import { describe, expect, it } from 'vitest';
import { DeliveryFailedError, RequestValidationError } from '../../src/index.js';
import { partnerRequests, useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 11 });

const UNREACHABLE = 'http://127.0.0.1:9';

describe('webhooks.update against the sandbox', () => {
  it('null removes a URL and keeps the others', async () => {
    const { client } = run();
    const created = await client.webhooks.create({
      operator: 'Optus',
      network: 'Optus 5G',
      eventType: 'voice',
      webhookUrls: { voiceUrl: `${UNREACHABLE}/voice`, callbackVoiceUrl: `${UNREACHABLE}/callback`, voiceStreamUrl: 'ws://127.0.0.1:9/stream' },
    });
    const updated = await client.webhooks.update(created.id, { webhookUrls: { voiceUrl: null, voiceStreamUrl: null } });
    expect(updated.webhookUrls).toEqual({ callbackVoiceUrl: `${UNREACHABLE}/callback` });
    await expect(client.webhooks.retrieve(created.id)).resolves.toMatchObject({ webhookUrls: { callbackVoiceUrl: `${UNREACHABLE}/callback` } });
  });

  it("status 'active' lifts a suspension", async () => {
    const { client } = run();
    const created = await client.webhooks.create({ operator: 'Optus', network: 'Optus 5G', eventType: 'voice', status: 'suspended' });
    expect(created.status).toBe('suspended');
    await expect(client.webhooks.update(created.id, { status: 'active' })).resolves.toMatchObject({ status: 'active' });
  });

  it('a bearer credential is replaced whole and read back masked', async () => {
    const { client } = run();
    const created = await client.webhooks.create({ operator: 'Optus', network: 'Optus 5G', eventType: 'voice' });
    const updated = await client.webhooks.update(created.id, { authentication: { type: 'bearer', token: 'receiver-token-1' } });
    expect(updated.authentication).toEqual({ type: 'bearer', token: '***ENCRYPTED***' });
  });

  it.each([
    ['bearer without its token', { authentication: { type: 'bearer' } }, 'body.authentication.token'],
    ['the masked credential sent back', { authentication: { type: 'bearer', token: '***ENCRYPTED***' } }, 'body.authentication.token'],
    ['update, which only create takes', { update: true }, 'body'],
    ['a misspelt URL member', { webhookUrls: { messageURL: 'https://p/sms' } }, 'body.webhookUrls'],
    ['null for a member other than a URL', { eventType: null }, 'body.eventType'],
    ['an unknown status', { status: 'paused' }, 'body.status'],
  ])('refuses %s before sending', async (_name, body, path) => {
    const { client, sandbox } = run();
    const from = sandbox.requests().length;
    const error = await client.webhooks.update('wh_any', body as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([path]);
    expect(partnerRequests(sandbox, from)).toHaveLength(0);
  });
});

describe('webhooks.deliveries.list against the sandbox', () => {
  it('walks the whole log, newest first, with a small pageSize', async () => {
    const { client } = run();
    const created = await client.webhooks.create({
      operator: 'Optus',
      network: 'Optus 5G',
      eventType: 'sms',
      webhookUrls: { messageUrl: `${UNREACHABLE}/sms` },
    });
    for (let i = 0; i < 3; i += 1) await expect(client.webhooks.test(created.id)).rejects.toBeInstanceOf(DeliveryFailedError);

    const seen: string[] = [];
    for await (const delivery of client.webhooks.deliveries.list({ webhookId: created.id, status: 'FAILED', pageSize: 2 })) {
      expect(delivery).toMatchObject({ webhookId: created.id, status: 'FAILED', eventType: 'webhook.test' });
      seen.push(delivery.deliveryId);
    }
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
  });
});
