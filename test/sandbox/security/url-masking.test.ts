/** A receiver URL's password never shows: not in the request log, its details, nor any control answer. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { maskUrlCredentials } from '../../../src/sandbox/mask-url.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

const json = { 'content-type': 'application/json' };

it('masks the user-info of every URL in the request log: bodies, query, headers, and the details of one request', async () => {
  await fetch(`${sandbox.url}/nowhere?callback=${encodeURIComponent('https://hook:s3cret-q@receiver.test/q')}`, {
    method: 'POST',
    headers: { ...json, 'x-callback': 'https://hook:s3cret-h@receiver.test/h' },
    body: JSON.stringify({
      webhookUrls: { smsUrl: 'https://hook:s3cret-b@receiver.test/sms', voiceStreamUrl: 'wss://s3cret-u@receiver.test/v' },
      note: 'see http://a:s3cret-t@x.test/ too',
    }),
  });
  const listed = await (await fetch(`${sandbox.url}/_sandbox/requests`)).text();
  const entry = sandbox.requests().at(-1);
  const detail = await (await fetch(`${sandbox.url}/_sandbox/requests/${entry?.id}`)).text();
  for (const text of [listed, detail, JSON.stringify(sandbox.requests())]) {
    expect(text).not.toMatch(/s3cret/);
  }
  expect(entry?.body).toEqual({
    webhookUrls: { smsUrl: 'https://***@receiver.test/sms', voiceStreamUrl: 'wss://***@receiver.test/v' },
    note: 'see http://***@x.test/ too',
  });
  expect(entry?.query).toEqual({ callback: 'https://***@receiver.test/q' });
  expect(entry?.headers['x-callback']).toBe('https://***@receiver.test/h');
});

it('masks it in every control answer that shows a URL (voice-quality webhooks, forced rules)', async () => {
  const created = await fetch(`${sandbox.url}/_sandbox/voice-quality/webhooks`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ url: 'https://hook:s3cret-vq@127.0.0.1:9/vq' }),
  });
  expect(created.status).toBe(201);
  expect(await created.text()).not.toMatch(/s3cret/);
  expect(await (await fetch(`${sandbox.url}/_sandbox/voice-quality/webhooks`)).text()).not.toMatch(/s3cret/);
  await fetch(`${sandbox.url}/_sandbox/force`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ path: '/api/v1.1/sims', body: { next: 'https://u:s3cret-f@x.test/' } }),
  });
  expect(await (await fetch(`${sandbox.url}/_sandbox/force`)).text()).not.toMatch(/s3cret/);
  expect(await (await fetch(`${sandbox.url}/_sandbox/overview`)).text()).not.toMatch(/s3cret/);
});

it('reads user-info as URL parsing does: to the last @ of the authority, across tabs and newlines', () => {
  expect(maskUrlCredentials('https://user:p@ss@host.test/x?y=a@b')).toBe('https://***@host.test/x?y=a@b');
  expect(maskUrlCredentials('https://us\ner:pa\tss@host.test/')).toBe('https://***@host.test/');
  expect(maskUrlCredentials('https://host.test/a@b')).toBe('https://host.test/a@b');
  expect(maskUrlCredentials('mail me@example.test')).toBe('mail me@example.test');
  expect(maskUrlCredentials('http://u:p@h.test:99999/ and ftp://x@y.test')).toBe('http://***@h.test:99999/ and ftp://***@y.test');
});
