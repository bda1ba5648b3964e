/**
 * The inspector page in headless Chromium: a real sandbox, the public client driving it, and
 * assertions on what the page shows. Every update reaches the page through its live feed (no
 * reload in any test).
 */
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../../src/index.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { useBrowser } from './browser.js';

const browser = useBrowser();
let sandbox: SandboxHandle;
let client: PartnerClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, transactionDelayMs: 50 });
  client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, maxRetries: 0 });
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.reset();
});

async function control(method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sandbox.url}${route}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return res.json();
}

/** Opens the inspector and waits until its live feed is connected. */
async function openInspector(): Promise<ReturnType<typeof browser>['page']> {
  const { page } = browser();
  await page.goto(`${sandbox.url}/_sandbox/`);
  await page.locator('#live', { hasText: 'live' }).waitFor();
  return page;
}

describe('inspector page', () => {
  it('shows a request live, with its rate-limit window, and counts it', async () => {
    const page = await openInspector();
    await client.sims.list({ pageSize: 5 });
    const row = page.locator('#requests-body tr', { hasText: '/api/v1.1/sims' });
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('200');
    await expect.poll(() => row.locator('td').nth(6).textContent()).toMatch(/^account \d+\/120 · \d+ s$/);
    await expect.poll(() => page.locator('[data-counter=requests] strong').textContent()).toBe(String(sandbox.requests().length));
    // The token exchange and the list; the page itself adds nothing to the log (no favicon fetch).
    expect(sandbox.requests().map((r) => r.path)).toEqual(['/api/v1.1/auth/token', '/api/v1.1/sims']);
    expect(browser().pageErrors).toEqual([]);
  });

  it('forces a 503 from the controls and marks the request that got it', async () => {
    const page = await openInspector();
    await page.getByLabel('Method').selectOption('GET');
    await page.getByLabel('Path').fill('/api/v1.1/sims');
    await page.getByLabel('Status', { exact: true }).fill('503');
    await page.getByRole('button', { name: 'Force', exact: true }).click();
    await page.locator('#rules li', { hasText: 'GET /api/v1.1/sims: answer 503' }).waitFor();

    await expect(client.sims.list()).rejects.toMatchObject({ status: 503 });
    const row = page.locator('#requests-body tr[data-status="503"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('forced 503');
    await expect.poll(() => page.locator('[data-counter=serverErrors] strong').textContent()).toBe('1');
    await page.locator('#rules li', { hasText: 'No forced answers pending.' }).waitFor();
  });

  describe('webhook deliveries', () => {
    let receiver: Receiver;
    beforeEach(async () => {
      receiver = await startReceiver([500]);
      return () => receiver.close();
    });

    it('shows each failed attempt, and Redeliver produces a new attempt', async () => {
      const page = await openInspector();
      await client.webhooks.create({
        operator: 'Telstra',
        network: 'Telstra 4G',
        eventType: 'sms',
        webhookUrls: { messageUrl: `${receiver.url}/hook` },
        retryPolicy: { maxAttempts: 1, backoffStrategy: 'fixed', initialDelaySeconds: 30 },
      });
      const sent = await fetch(`${sandbox.url}/_sandbox/events/sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operator: 'Telstra', network: 'Telstra 4G', text: 'hello' }),
      });
      const { deliveries } = (await sent.json()) as { deliveries: Array<{ deliveryId: string }> };
      const deliveryId = deliveries[0]?.deliveryId ?? '';
      const row = page.locator(`#deliveries-body tr[data-delivery-id="${deliveryId}"]`);

      // First attempt answered 500; the retry waits 30 s of sandbox time.
      await row.locator('li[data-attempt="1"]', { hasText: '500' }).waitFor();
      expect(await row.locator('li[data-attempt="1"] code').textContent()).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await row.textContent()).toContain('retry at');
      expect(await row.getAttribute('data-status')).toBe('PENDING');

      // The clock control runs the retry at once.
      await page.getByLabel('Advance clock by (ms)').fill('30000');
      await page.getByRole('button', { name: 'Advance clock' }).click();
      await row.locator('li[data-attempt="2"]', { hasText: '500' }).waitFor();
      await page.locator(`#deliveries-body tr[data-delivery-id="${deliveryId}"][data-status="FAILED"]`).waitFor();
      await expect.poll(() => page.locator('[data-counter=deliveriesFailed] strong').textContent()).toBe('1');
      expect(receiver.received).toHaveLength(2);

      receiver.answers = [200];
      await page.getByRole('button', { name: `Redeliver ${deliveryId}` }).click();
      const redelivery = page.locator('#deliveries-body tr', { hasText: `redelivery of ${deliveryId}` });
      await redelivery.locator('li[data-attempt="1"]', { hasText: '200' }).waitFor();
      await page.locator('#deliveries-body tr[data-status="DELIVERED"]', { hasText: `redelivery of ${deliveryId}` }).waitFor();
      expect(receiver.received).toHaveLength(3);
    });
  });

  it('shows a transaction reaching COMPLETED with its timeline and result', async () => {
    const page = await openInspector();
    const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
    const done = await handle.wait();
    expect(done.status).toBe('COMPLETED');
    const row = page.locator(`#transactions-body tr[data-transaction-id="${handle.transactionId}"][data-status="COMPLETED"]`);
    await row.waitFor();
    const steps = await row.locator('ol.timeline li strong').allTextContents();
    expect(steps).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(await row.locator('pre').textContent()).toContain('"iccid"');
  });

  it('shows an HTML payload in a body as text, and masks credentials in the details', async () => {
    const page = await openInspector();
    const payload = '<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script><b id=injected>bold</b>';
    await client.sms.send({ fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+61400000000', text: payload }).catch(() => undefined);
    const row = page.locator('#requests-body tr', { hasText: '/api/v1.1/sms' });
    await row.waitFor();
    await row.getByRole('button').click();
    const body = page.locator('#detail pre[data-part="request-body"]');
    await body.waitFor();
    expect(await body.textContent()).toContain(payload);
    expect(await page.locator('#detail img, #detail script, #injected').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    const authorization = page.locator('#detail tr', { has: page.locator('th', { hasText: /^authorization$/ }) });
    expect(await authorization.locator('td').textContent()).toBe('[REDACTED]');
    expect(await page.locator('#detail').textContent()).not.toContain(sandbox.secret);
    expect(browser().pageErrors).toEqual([]);
  });
  it('filters requests by route, status class and failures', async () => {
    const page = await openInspector();
    await control('POST', '/_sandbox/force', { method: 'GET', path: '/api/v1.1/plans/{planId}', status: 429 });
    await client.sims.list({ pageSize: 1 });
    await expect(client.plans.retrieve('plan_nope')).rejects.toMatchObject({ status: 429 });
    await expect(client.plans.retrieve('plan_nope')).rejects.toMatchObject({ status: 404 });
    const rows = page.locator('#requests-body tr');
    await expect.poll(() => rows.count()).toBe(sandbox.requests().length);
    const statuses = async (): Promise<Array<string | null>> => Promise.all((await rows.all()).map((row) => row.getAttribute('data-status')));

    await page.getByLabel('Route contains').fill('/plans/');
    await expect.poll(statuses).toEqual(['404', '429']);
    await page.getByRole('combobox', { name: /^Status class/ }).selectOption('429');
    await expect.poll(statuses).toEqual(['429']);
    await page.getByLabel('Route contains').fill('');
    await page.getByRole('combobox', { name: /^Status class/ }).selectOption('');
    await page.getByLabel('Only failures').check();
    await expect.poll(statuses).toEqual(['404', '429']);
    await expect.poll(() => page.locator('[data-counter=rateLimited] strong').textContent()).toBe('1');
  });

  it('labels every control and opens request details from the keyboard', async () => {
    const page = await openInspector();
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select')].filter((field) => (field as HTMLInputElement).labels?.length === 0).map((field) => field.id),
    );
    expect(unlabelled).toEqual([]);
    await client.sims.list({ pageSize: 1 });
    const link = page.getByRole('button', { name: 'Details of GET /api/v1.1/sims' });
    await link.waitFor();
    await link.focus();
    await page.keyboard.press('Enter');
    await page.locator('#detail-title:focus', { hasText: 'Request #' }).waitFor();
    // New rows arriving keep the focus where the reader left it.
    await link.focus();
    await client.sims.list({ pageSize: 2 });
    await expect.poll(() => page.locator('#requests-body tr').count()).toBe(sandbox.requests().length);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Details of GET /api/v1.1/sims');
  });

  it('resets the sandbox from the controls and reloads what it shows', async () => {
    const page = await openInspector();
    await client.sims.list({ pageSize: 1 });
    await page.locator('#requests-body tr', { hasText: '/api/v1.1/sims' }).waitFor();
    await page.getByRole('button', { name: 'Reset sandbox to its seed' }).click();
    await expect.poll(() => page.locator('#requests-body tr').count()).toBe(0);
    await expect.poll(() => page.locator('[data-counter=requests] strong').textContent()).toBe('0');
    expect(sandbox.requests()).toEqual([]);
  });

  it('shows a registration suspended after 10 failed deliveries, in its row and the counter strip', async () => {
    const page = await openInspector();
    const receiver = await startReceiver([500]);
    try {
      const registration = await client.webhooks.create({
        operator: 'Telstra',
        network: 'Telstra 4G',
        eventType: 'sms',
        webhookUrls: { messageUrl: receiver.url },
        retryPolicy: { maxAttempts: 1, backoffStrategy: 'fixed', initialDelaySeconds: 1 },
      });
      for (let i = 0; i < 10; i++) {
        await control('POST', '/_sandbox/events/sms', { operator: 'Telstra', network: 'Telstra 4G' });
        await expect.poll(() => receiver.received.length).toBe(2 * i + 1);
        await control('POST', '/_sandbox/time', { advanceMs: 1000 });
        await expect.poll(() => receiver.received.length).toBe(2 * i + 2);
      }
      await expect.poll(() => page.locator('[data-counter=suspendedRegistrations] strong').textContent()).toBe('1');
      await expect.poll(() => page.locator('[data-counter=deliveriesFailed] strong').textContent()).toBe('10');
      const newest = page.locator('#deliveries-body tr').first();
      await expect.poll(() => newest.locator('td').nth(6).textContent()).toBe(`${registration.id} suspended 10 failed in a row`);
    } finally {
      await receiver.close();
    }
  });

  it.runIf(process.env.INSPECTOR_SCREENSHOT)('takes a screenshot of the inspector at work', async () => {
    const page = await openInspector();
    const receiver = await startReceiver([500, 500, 200]);
    try {
      await client.webhooks.create({
        operator: 'Telstra',
        network: 'Telstra 4G',
        eventType: 'sms',
        webhookUrls: { messageUrl: `${receiver.url}/sms` },
        retryPolicy: { maxAttempts: 3, backoffStrategy: 'exponential', initialDelaySeconds: 5 },
      });
      await client.sims.list({ pageSize: 20 });
      await control('POST', '/_sandbox/force', { method: 'GET', path: '/api/v1.1/sims', status: 503 });
      await expect(client.sims.list()).rejects.toMatchObject({ status: 503 });
      await (await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId })).wait();
      await client.sms
        .send({ fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+61400000000', text: '<b>not bold</b>' }, { idempotencyKey: 'order-42' })
        .catch(() => undefined);
      await control('POST', '/_sandbox/events/sms', { operator: 'Telstra', network: 'Telstra 4G', text: 'hello' });
      await expect.poll(() => receiver.received.length).toBe(1);
      await control('POST', '/_sandbox/time', { advanceMs: 5000 });
      await expect.poll(() => receiver.received.length).toBe(2);
      await page.getByRole('button', { name: 'Details of POST /api/v1.1/sms' }).click();
      await page.locator('#detail pre[data-part="answer-body"]').waitFor();
      await page.screenshot({ path: path.resolve(process.env.INSPECTOR_SCREENSHOT ?? ''), fullPage: true });
    } finally {
      await receiver.close();
    }
  });
});
