/**
 * The inspector's feed has FEED_MAX_WATCHERS slots, each held while a stream is open. A page of
 * another site that frames GET /_sandbox/events twenty times must not take them (the developer's
 * inspector would then show "disconnected"): a frame is a navigation, and only the inspector's own
 * EventSource, or a client that is no browser, may watch. Requests carry exactly the headers
 * Chromium sends, over real loopback HTTP, and stay open as a browser's frames would.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../../src/sandbox/handler.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { FEED_MAX_WATCHERS } from '../../../src/sandbox/inspector/feed.js';

const NAVIGATION_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

/** What Chromium sends for `<iframe src="http://127.0.0.1:port/_sandbox/events">` on http://evil.example. */
const CROSS_SITE_IFRAME = {
  accept: NAVIGATION_ACCEPT,
  'sec-fetch-dest': 'iframe',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'cross-site',
  'upgrade-insecure-requests': '1',
  referer: 'http://evil.example/',
};

/** What Chromium sends for the inspector page's `new EventSource('/_sandbox/events')`. */
const INSPECTOR_EVENT_SOURCE = {
  accept: 'text/event-stream',
  'cache-control': 'no-cache',
  'sec-fetch-dest': 'empty',
  'sec-fetch-mode': 'cors',
  'sec-fetch-site': 'same-origin',
};

let sandbox: SandboxHandle;
/** Streams left open by a test, closed after it. */
const open: ClientRequest[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
});
afterEach(() => {
  for (const request of open.splice(0)) request.destroy();
});
afterAll(async () => {
  await sandbox.close();
});

/** A GET whose answer's status is read and whose stream is left open, as a frame or an EventSource leaves it. */
function openGet(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: sandbox.port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    open.push(request);
    request.on('error', reject);
    request.end();
  });
}

async function watchers(): Promise<number> {
  const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as { inspectorWatchers: number };
  return stats.inspectorWatchers;
}

describe('the feed keeps its slots for the inspector page', () => {
  it('refuses twenty frames of the feed on another site, and the inspector still connects', async () => {
    const frames = await Promise.all(Array.from({ length: FEED_MAX_WATCHERS + 4 }, () => openGet('/_sandbox/events', CROSS_SITE_IFRAME)));
    expect(frames).toEqual(frames.map(() => 403));
    expect(await watchers()).toBe(0);
    expect(await openGet('/_sandbox/events', INSPECTOR_EVENT_SOURCE)).toBe(200);
    expect(await watchers()).toBe(1);
  });

  it.each([
    ['a frame on a page of the same origin', { ...CROSS_SITE_IFRAME, 'sec-fetch-site': 'same-origin' }],
    ['a frame on another port of loopback (same-site)', { ...CROSS_SITE_IFRAME, 'sec-fetch-site': 'same-site' }],
    ['an <object> or <embed>', { ...CROSS_SITE_IFRAME, 'sec-fetch-dest': 'object', 'sec-fetch-mode': 'navigate' }],
    ['a link from another site opened in a tab', { ...CROSS_SITE_IFRAME, 'sec-fetch-dest': 'document' }],
    ['the address typed in a tab', { ...CROSS_SITE_IFRAME, 'sec-fetch-dest': 'document', 'sec-fetch-site': 'none' }],
    ['a navigation by a browser without fetch metadata', { accept: NAVIGATION_ACCEPT, 'upgrade-insecure-requests': '1' }],
  ])('refuses %s, holding no slot', async (_name, headers) => {
    expect(await openGet('/_sandbox/events', headers)).toBe(403);
    expect(await watchers()).toBe(0);
  });

  it('lets a client that is no browser watch (curl, Node fetch)', async () => {
    expect(await openGet('/_sandbox/events', { accept: '*/*', 'user-agent': 'curl/8.5.0' })).toBe(200);
    expect(await openGet('/_sandbox/events', { accept: '*/*', 'sec-fetch-mode': 'cors' })).toBe(200);
    await expect.poll(watchers).toBe(2);
  });

  it('says why it refused', async () => {
    const answer = await fetch(`${sandbox.url}/_sandbox/events`, { headers: { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' } });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: string }).error).toMatch(/read by the inspector page's EventSource.*Sec-Fetch-Dest: document/);
  });
});

describe('no control route is shown inside a page', () => {
  it('refuses every control GET in a frame, even of the same origin, and the page itself', async () => {
    const reads = routesOf(sandbox)
      .filter((route) => route.path.startsWith('/_sandbox') && route.method === 'GET')
      .map((route) => route.path.replace(/:\w+/g, 'x'));
    expect(reads).toContain('/_sandbox/');
    for (const path of reads) {
      for (const site of ['cross-site', 'same-origin']) {
        const status = await openGet(path, { ...CROSS_SITE_IFRAME, 'sec-fetch-site': site });
        expect({ path, site, status }).toEqual({ path, site, status: 403 });
      }
    }
  });

  it('still opens a control GET and the page in a tab', async () => {
    const tab = { ...CROSS_SITE_IFRAME, 'sec-fetch-dest': 'document', 'sec-fetch-site': 'none' };
    expect(await openGet('/_sandbox/', tab)).toBe(200);
    expect(await openGet('/_sandbox/requests', tab)).toBe(200);
  });
});
