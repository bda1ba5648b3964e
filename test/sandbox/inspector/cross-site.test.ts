/**
 * A real browser against a real sandbox: a page of another origin (another port of loopback,
 * which is same-site, and another name, which is cross-site) tries the requests a page may send
 * without a CORS preflight, and a page on a name that resolves to 127.0.0.1 (DNS rebinding, by
 * Chromium's host resolver rules) tries to read the sandbox as its own origin. The sandbox's
 * state is unchanged and nothing is read. A page that frames the inspector's feed many times
 * takes none of its watcher slots.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { FEED_MAX_WATCHERS } from '../../../src/sandbox/inspector/feed.js';
import { useBrowser } from './browser.js';

const browser = useBrowser([
  '--host-resolver-rules=MAP evil.test 127.0.0.1',
  // Chromium's own Private Network Access checks would stop a public page's requests to loopback
  // first; browsers without them (Firefox, Safari) do not, so the sandbox must refuse on its own.
  '--disable-features=PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests,LocalNetworkAccessChecks',
]);

let sandbox: SandboxHandle;
let attacker: Server;
let attackerPort: number;

/** The page a hostile site serves: a form post with a JSON-looking text/plain body, then no-cors fetches and a beacon. */
const attackPage = (target: string): string => `<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${target}/_sandbox/account" enctype="text/plain" target="sink">
<input type="hidden" name='{"apiAccess":false,"x":"' value='"}'>
</form>
<script>
window.attack = async function () {
  const sends = [
    fetch('${target}/_sandbox/time', { method: 'POST', mode: 'no-cors', body: '{"advanceMs":31536000000}' }),
    fetch('${target}/_sandbox/force', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"path":"/api/v1.1/sims","status":503,"times":99}' }),
    fetch('${target}/_sandbox/account', { method: 'POST', mode: 'no-cors', body: new Blob(['{"customerMissing":true}']) }),
    fetch('${target}/_sandbox/reset', { method: 'POST', mode: 'no-cors' }),
    fetch('${target}/_sandbox/voice-quality/webhooks', { method: 'POST', mode: 'no-cors', body: '{"url":"http://127.0.0.1:9/steal"}' }),
  ];
  navigator.sendBeacon('${target}/_sandbox/tokens/revoke', '{}');
  await Promise.allSettled(sends);
  document.getElementById('f').submit();
};
</script></body></html>`;

/**
 * A hostile page that frames the inspector's feed more times than it has watcher slots, under
 * each name the sandbox answers to: a browser opens at most six connections to one host, and
 * each frame's stream holds one.
 */
const FRAMES = FEED_MAX_WATCHERS + 4;
const framesPage = (port: number): string => {
  const names = ['127.0.0.1', 'localhost', 'localhost.'];
  const frames = Array.from({ length: FRAMES }, (_, i) => `<iframe src="http://${names[i % names.length]}:${port}/_sandbox/events"></iframe>`);
  return `<!doctype html><html><body>${frames.join('')}</body></html>`;
};

beforeAll(async () => {
  sandbox = await startSandbox({ now: '2030-01-01T00:00:00Z', timeScale: 1e-9 });
  attacker = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const target = url.searchParams.get('target') ?? sandbox.url;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(url.pathname === '/frames' ? framesPage(sandbox.port) : attackPage(target));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => attacker.close(() => resolve()));
  await sandbox.close();
});

async function state(): Promise<unknown> {
  const read = async (path: string): Promise<unknown> => (await fetch(`${sandbox.url}${path}`)).json();
  return {
    time: await read('/_sandbox/time'),
    account: await read('/_sandbox/account'),
    force: await read('/_sandbox/force'),
    vq: await read('/_sandbox/voice-quality/webhooks'),
  };
}

describe('a page of another origin', () => {
  for (const [name, pageOrigin] of [
    ['another port of 127.0.0.1 (same-site)', () => `http://127.0.0.1:${attackerPort}`],
    ['localhost against 127.0.0.1 (cross-site)', () => `http://localhost:${attackerPort}`],
  ] as const) {
    it(`cannot change the sandbox from ${name}`, async () => {
      const { page } = browser();
      const before = await state();
      const statuses: number[] = [];
      page.on('response', (response) => {
        if (response.url().startsWith(`${sandbox.url}/_sandbox/`)) statuses.push(response.status());
      });
      await page.goto(`${pageOrigin()}/?target=${encodeURIComponent(sandbox.url)}`);
      const formAnswered = page.waitForResponse(
        (response) => response.url() === `${sandbox.url}/_sandbox/account` && response.request().postData()?.includes('apiAccess') === true,
      );
      await page.evaluate(() => (window as unknown as { attack(): Promise<void> }).attack());
      expect((await formAnswered).status()).toBe(403);
      await expect.poll(() => statuses.length).toBeGreaterThanOrEqual(6);
      expect(statuses.every((status) => status === 403)).toBe(true);
      expect(await state()).toEqual(before);
    });
  }
});

describe("the inspector's feed", () => {
  it('keeps its watcher slots from a page of another site that frames it many times: the inspector still connects', async () => {
    const { page } = browser();
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/_sandbox/events') statuses.push(response.status());
    });
    // Frames that stream never finish loading: the page is taken as it is once parsed.
    await page.goto(`http://localhost:${attackerPort}/frames`, { waitUntil: 'domcontentloaded' });
    await expect.poll(() => statuses.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(FEED_MAX_WATCHERS);

    // The developer's inspector, opened while the hostile page is still open.
    const inspector = await (page.context().browser() as Browser).newPage();
    inspector.setDefaultTimeout(5_000);
    try {
      await inspector.goto(`${sandbox.url}/_sandbox/`);
      await inspector.locator('#live', { hasText: /^live$/ }).waitFor();
    } finally {
      await inspector.close();
    }
    await expect.poll(() => statuses.length, { timeout: 10_000 }).toBe(FRAMES);
    expect(statuses).toEqual(statuses.map(() => 403));
    // No frame holds a slot: once the inspector has gone, nobody watches.
    const watchers = async (): Promise<number> =>
      ((await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as { inspectorWatchers: number }).inspectorWatchers;
    await expect.poll(watchers).toBe(0);
  });
});

describe('DNS rebinding: a page on evil.test, which resolves to 127.0.0.1', () => {
  it('cannot read the sandbox as its own origin, nor drive it', async () => {
    const { page } = browser();
    await fetch(`${sandbox.url}/_sandbox/events/sms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operator: 'Telstra', network: 'Telstra 4G', text: 'one-time code 424242' }),
    });
    await fetch(`${sandbox.url}/_sandbox/voice-quality/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/r' }),
    });
    const before = await state();
    const origin = `http://evil.test:${sandbox.port}`;
    // The attacker's page, as its server sent it before the name was pointed at 127.0.0.1.
    await page.route(`${origin}/`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>evil</title>' }));
    await page.goto(`${origin}/`);
    const results = await page.evaluate(async () => {
      const paths = ['/_sandbox/requests', '/_sandbox/fixtures', '/_sandbox/voice-quality/webhooks', '/_sandbox/overview', '/_sandbox/'];
      const reads = await Promise.all(
        paths.map(async (path) => {
          try {
            const response = await fetch(path);
            return { path, status: response.status, text: await response.text() };
          } catch (error) {
            return { path, status: 0, text: String(error) };
          }
        }),
      );
      const write = await fetch('/_sandbox/account', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"apiAccess":false}',
      }).then(
        (response) => response.status,
        () => 0,
      );
      return { reads, write };
    });
    for (const read of results.reads) {
      expect({ path: read.path, status: read.status }).toEqual({ path: read.path, status: 403 });
      expect(read.text).not.toContain('424242');
      expect(read.text).not.toContain('signingSecret');
      expect(read.text).toContain('is not a name this sandbox answers to');
    }
    expect(results.write).toBe(403);
    expect(await state()).toEqual(before);
  });
});
