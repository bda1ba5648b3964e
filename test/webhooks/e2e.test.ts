import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import {
  createDeduplicator,
  createFetchHandler,
  createNodeHandler,
  createVoiceStreamServer,
  webhookMiddleware,
  type SmsEventData,
  type VoiceStreamFrame,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { listen, type Loopback } from '../helpers/server.js';
import { fetchBridge } from './helpers.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

const adapters: Record<string, (options: WebhookHandlerOptions) => Listener> = {
  'node http handler': (options) => createNodeHandler(options),
  'express middleware': (options) => {
    const app = express();
    app.post('/sms', express.raw({ type: 'application/json' }), webhookMiddleware(options));
    return app;
  },
  // A global express.json() that keeps the raw bytes: the setup many apps already have.
  'express middleware after express.json({ verify })': (options) => {
    const app = express();
    app.use(express.json({ verify: (req, _res, buf) => void ((req as typeof req & { rawBody?: Buffer }).rawBody = buf) }));
    app.post('/sms', webhookMiddleware(options));
    return app;
  },
  'fetch handler': (options) => fetchBridge(createFetchHandler(options)),
};

/** A receiver whose handler is installed once the registration (and so the secret) exists. */
async function receiver(): Promise<Loopback & { use(listener: Listener): void }> {
  let current: Listener = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = await listen((req: IncomingMessage, res: ServerResponse) => current(req, res));
  return Object.assign(server, { use: (listener: Listener) => void (current = listener) });
}

async function control<T>(sandbox: SandboxHandle, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.url}/_sandbox/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.ok).toBe(true);
  return (await response.json()) as T;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('receiving deliveries from the sandbox', () => {
  let sandbox: SandboxHandle;
  let client: PartnerClient;
  let operator: string;
  let network: string;
  let open: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 42 });
    client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
    const page = await client.sims.list({ pageSize: 1 });
    const sim = page.data[0];
    if (!sim) throw new Error('the sandbox has no SIM');
    operator = sim.operator;
    network = sim.network;
  });

  afterEach(async () => {
    for await (const registration of client.webhooks.list()) await client.webhooks.delete(registration.id);
    await Promise.all(open.map((item) => item.close()));
    open = [];
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  /** A fresh local receiver and an SMS registration pointing at it (closed and deleted after the test). */
  async function smsSite(extra: Partial<Parameters<PartnerClient['webhooks']['create']>[0]> = {}) {
    const site = await receiver();
    open.push(site);
    const registration = { operator, network, eventType: 'sms' as const, webhookUrls: { messageUrl: `${site.url}/sms` } };
    const created = await client.webhooks.create({ ...registration, ...extra });
    return { site, registration, created };
  }

  it('accepts deliveries of a sandbox whose clock runs ahead when given its clock as now, and says why when not', async () => {
    const { site, created } = await smsSite();
    const refusals: unknown[] = [];
    const received: WebhookEvent[] = [];
    let now: (() => Date) | undefined;
    site.use(
      createNodeHandler({
        secret: created.signingSecret,
        now: () => (now ?? (() => new Date()))(),
        onError: (error) => refusals.push(error),
        onEvent: (event) => void received.push(event),
      }),
    );
    // An hour ahead, as a sandbox at timeScale 100 is after 36 s.
    sandbox.advanceTime(3_600_000);
    try {
      await control(sandbox, 'events/sms', { operator, network, text: 'on the real clock' });
      await until(async () => refusals[0], 'the refusal');
      expect(String((refusals[0] as Error).message)).toMatch(
        /^the signed timestamp is 3[56]\d\d s ahead of this receiver's clock \(tolerance 300 s\)/,
      );
      now = sandbox.now;
      await control(sandbox, 'events/sms', { operator, network, text: 'on the sandbox clock' });
      const event = await until(async () => received[0], 'the delivery');
      expect(event.type === 'sms' && event.data.text).toBe('on the sandbox clock');
    } finally {
      sandbox.reset();
    }
  });

  it.each(Object.keys(adapters))('%s: receives a signed inbound SMS, verifies it and finds it in deliveries.list', async (name) => {
    const { site, created } = await smsSite();
    expect(created.signingSecret).toMatch(/^whsec_[0-9a-f]{64}$/);

    const received = new Promise<WebhookEvent>((resolve) => {
      site.use(adapters[name]!({ secret: created.signingSecret, onEvent: resolve }));
    });
    const triggered = await control<{ deliveries: Array<{ deliveryId: string }>; event: { messageId: string } }>(sandbox, 'events/sms', {
      operator,
      network,
      text: `hello through ${name}`,
    });
    expect(triggered.deliveries).toHaveLength(1);

    const event = await received;
    expect(event.type).toBe('sms');
    if (event.type !== 'sms') throw new Error('narrowing');
    expect(event.name).toBe('sms.received');
    expect(event.data).toMatchObject({ text: `hello through ${name}`, messageId: triggered.event.messageId, operator, network });
    // The fields SmsEventData names are exactly those the sandbox sends, each a string.
    const named: Array<keyof SmsEventData> = ['event', 'messageId', 'operator', 'network', 'from', 'to', 'text', 'receivedAt'];
    expect(Object.keys(event.data).sort()).toEqual([...named].sort());
    for (const field of named) expect(typeof event.data[field]).toBe('string');

    const deliveryId = triggered.deliveries[0]?.deliveryId;
    const record = await until(async () => {
      const list = await client.webhooks.deliveries.list({ webhookId: created.id });
      return list.data.find((item) => item.deliveryId === deliveryId && item.status !== 'PENDING');
    }, 'the delivery record');
    expect(record).toMatchObject({ webhookId: created.id, status: 'DELIVERED', responseCode: 200, attempt: 1 });
  });

  it('receives the synthetic webhook.test sent by client.webhooks.test, recorded in deliveries.list', async () => {
    const { site, created } = await smsSite();
    const received = new Promise<WebhookEvent>((resolve) => {
      site.use(adapters['express middleware after express.json({ verify })']!({ secret: created.signingSecret, onEvent: resolve }));
    });
    const test = await client.webhooks.test(created.id);
    const event = await received;
    expect(event).toMatchObject({ type: 'webhook.test', name: 'webhook.test' });
    const list = await client.webhooks.deliveries.list({ webhookId: created.id });
    expect(list.data.find((item) => item.deliveryId === test.deliveryId)).toMatchObject({ eventType: 'webhook.test', responseCode: 200 });
  });

  it('keeps verifying across a secret rotation when given the old and the new secret', async () => {
    const { site, registration, created: first } = await smsSite();
    const second = await client.webhooks.create({ ...registration, update: true });
    expect(second.id).toBe(first.id);
    expect(second.signingSecret).not.toBe(first.signingSecret);
    const received = new Promise<WebhookEvent>((resolve) => {
      site.use(createNodeHandler({ secret: [first.signingSecret, second.signingSecret], onEvent: resolve }));
    });
    await control(sandbox, 'events/sms', { operator, network, text: 'after rotation' });
    expect((await received).data).toMatchObject({ text: 'after rotation' });
  });

  it('refuses a delivery signed with another secret, so the sandbox records it FAILED', async () => {
    const { site, created } = await smsSite({
      retryPolicy: { maxAttempts: 1, backoffStrategy: 'fixed', initialDelaySeconds: 60, maxDelaySeconds: 60 },
    });
    const reasons: string[] = [];
    site.use(
      createNodeHandler({
        secret: `whsec_${'0'.repeat(64)}`,
        onEvent: () => undefined,
        onError: (error) => reasons.push((error as { reason: string }).reason),
      }),
    );
    const triggered = await control<{ deliveries: Array<{ deliveryId: string }> }>(sandbox, 'events/sms', { operator, network });
    const first = await until(async () => {
      const list = await client.webhooks.deliveries.list({ webhookId: created.id });
      return list.data.find((item) => item.deliveryId === triggered.deliveries[0]?.deliveryId && item.attempt >= 1);
    }, 'the first attempt');
    expect(first.responseCode).toBe(400);
    expect(reasons).toEqual(['signature_mismatch']);
  });
});

describe('retries, suspension and redelivery against a sandbox on a scaled clock', () => {
  let sandbox: SandboxHandle;
  let client: PartnerClient;
  let site: Loopback & { use(listener: Listener): void };

  beforeAll(async () => {
    // 20 sandbox ms per real ms: a 1 s retry delay passes in 50 ms, the 30 s voice quality retry
    // in 1.5 s, while each attempt still gets the sandbox's real-time delivery timeout.
    sandbox = await startSandbox({ port: 0, seed: 42, timeScale: 20, rateLimit: false });
    // The test polls the deliveries list often; the client-side limiter would pace it to 120 a minute.
    client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false });
    site = await receiver();
  });

  afterAll(async () => {
    await site.close();
    await client.close();
    await sandbox.close();
  });

  it('retries a failing receiver, suspends after 10 consecutive failed deliveries, then redelivers', async () => {
    const sim = (await client.sims.list({ pageSize: 1 })).data[0];
    if (!sim) throw new Error('the sandbox has no SIM');
    const { operator, network } = sim;
    const created = await client.webhooks.create({
      operator,
      network,
      eventType: 'sms',
      webhookUrls: { messageUrl: `${site.url}/sms` },
      retryPolicy: { maxAttempts: 2, backoffStrategy: 'fixed', initialDelaySeconds: 1, maxDelaySeconds: 60 },
    });

    let failing = true;
    const seen: WebhookEvent[] = [];
    site.use(
      createNodeHandler({
        secret: created.signingSecret,
        now: sandbox.now,
        onError: () => undefined,
        onEvent: (event) => {
          seen.push(event);
          if (failing) throw new Error('receiver is down');
        },
      }),
    );

    const failedIds: string[] = [];
    for (let i = 1; i <= 10; i++) {
      const triggered = await control<{ deliveries: Array<{ deliveryId: string }> }>(sandbox, 'events/sms', {
        operator,
        network,
        text: `message ${i}`,
      });
      const deliveryId = triggered.deliveries[0]?.deliveryId ?? '';
      failedIds.push(deliveryId);
      const record = await until(async () => {
        const list = await client.webhooks.deliveries.list({ webhookId: created.id, status: 'FAILED' });
        return list.data.find((item) => item.deliveryId === deliveryId);
      }, `delivery ${i} to fail`);
      // spec part 8: maxAttempts counts retries, so 1 + 2 attempts, each answered 500 by onEvent's failure.
      expect(record).toMatchObject({ attempt: 3, responseCode: 500 });
      expect((await client.webhooks.retrieve(created.id)).status).toBe(i < 10 ? 'active' : 'suspended');
    }
    // Every attempt was verified (so handed to onEvent) before the handler failed it.
    expect(seen).toHaveLength(30);

    const afterSuspension = await control<{ deliveries: unknown[] }>(sandbox, 'events/sms', { operator, network });
    expect(afterSuspension.deliveries).toEqual([]);

    failing = false;
    const redelivered = await client.webhooks.deliveries.redeliver(failedIds[0] ?? '');
    expect(redelivered.status).toBe('PENDING');
    const done = await until(async () => {
      const list = await client.webhooks.deliveries.list({ webhookId: created.id });
      return list.data.find((item) => item.deliveryId === redelivered.deliveryId && item.status !== 'PENDING');
    }, 'the redelivery');
    expect(done).toMatchObject({ status: 'DELIVERED', responseCode: 200, attempt: 1 });
    const last = seen.at(-1);
    expect(last?.type === 'sms' && last.data['text']).toBe('message 1');
  });

  it('delivers voice.test.completed with its headers, retried after a failure and deduplicated on id', async () => {
    const site2 = await receiver();
    try {
      const webhook = await control<{ id: string; signingSecret: string }>(sandbox, 'voice-quality/webhooks', {
        url: `${site2.url}/voice-quality`,
      });
      let attempts = 0;
      const handled: WebhookEvent[] = [];
      const dedupe = createDeduplicator();
      site2.use(
        createNodeHandler({
          secret: webhook.signingSecret,
          now: sandbox.now,
          dedupe,
          onError: () => undefined,
          onEvent: (event) => {
            attempts += 1;
            if (attempts === 1) throw new Error('first attempt fails');
            handled.push(event);
          },
        }),
      );
      const sim = (await client.sims.list({ pageSize: 1 })).data[0];
      const started = await control<{ event: { id: string }; deliveries: Array<{ webhookId: string; deliveryId: string }> }>(
        sandbox,
        'voice-quality/tests',
        { iccid: sim?.iccid, mos: 4.2 },
      );
      const ours = started.deliveries.find((item) => item.webhookId === webhook.id);
      const event = await until(async () => handled[0], 'the retried voice.test.completed');
      expect(event).toMatchObject({
        type: 'voice.test.completed',
        id: started.event.id,
        delivery: { eventHeader: 'voice.test.completed', deliveryId: ours?.deliveryId },
      });
      expect(attempts).toBe(2);
      // The same event again (a late duplicate) is acknowledged without reaching onEvent.
      expect(await dedupe.claim(event)).toBeUndefined();
    } finally {
      await site2.close();
    }
  });
});

describe('voice stream from the sandbox', () => {
  let sandbox: SandboxHandle;
  let client: PartnerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 42 });
    client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  it('connects to a local receiver, sends the handshake, then exactly the samples of the tone', async () => {
    const voice = await createVoiceStreamServer({ path: '/voice' });
    try {
      const sim = (await client.sims.list({ pageSize: 1 })).data[0];
      if (!sim) throw new Error('the sandbox has no SIM');
      await client.webhooks.create({
        operator: sim.operator,
        network: sim.network,
        eventType: 'voice',
        webhookUrls: { voiceStreamUrl: voice.url },
      });
      const frames = (async () => {
        const next = await voice.calls().next();
        if (next.done) throw new Error('no call');
        const collected: VoiceStreamFrame[] = [];
        for await (const frame of next.value) collected.push(frame);
        return collected;
      })();
      const answer = await control<{ handshake: Record<string, unknown>; samplesSent: number; connections: number }>(sandbox, 'voice-stream', {
        operator: sim.operator,
        network: sim.network,
        durationMs: 400,
        toneHz: 440,
      });
      expect(answer.connections).toBe(1);
      expect(answer.samplesSent).toBe(3200);

      const received = await frames;
      expect(received[0]).toEqual({ type: 'handshake', data: answer.handshake });
      const samples = received.flatMap((frame) => (frame.type === 'audio' ? Array.from(frame.samples) : []));
      expect(samples).toHaveLength(answer.samplesSent);
      // A 440 Hz sine at half scale: check it sample by sample.
      const expected = samples.map((_, i) => Math.round(0.5 * 32767 * Math.sin((2 * Math.PI * 440 * i) / 8000)) || 0);
      expect(samples).toEqual(expected);
      for await (const registration of client.webhooks.list()) await client.webhooks.delete(registration.id);
    } finally {
      await voice.close();
    }
  });
});
