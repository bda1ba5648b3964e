/**
 * The inspector's live feed over a real socket: a client that opens it and never reads costs the
 * sandbox at most the feed's queue cap, is then dropped, and everyone else is still answered.
 */
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { FEED_MAX_QUEUED_BYTES } from '../../../src/sandbox/inspector/feed.js';

let sandbox: SandboxHandle;
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false });
});
afterAll(async () => {
  agent.destroy();
  await sandbox.close();
});

function get(path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: sandbox.port, path, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const watchers = async (): Promise<number> => (JSON.parse((await get('/_sandbox/stats')).text) as { inspectorWatchers: number }).inspectorWatchers;

it('drops a feed client that never reads once its queue passes the cap, and keeps answering everyone else', async () => {
  // The client sends its GET and then never reads the socket.
  const stalled: Socket = connect({ host: '127.0.0.1', port: sandbox.port });
  await new Promise<void>((resolve) => stalled.once('connect', resolve));
  stalled.pause();
  stalled.write(`GET /_sandbox/events HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\n\r\n`);
  await expect.poll(watchers).toBe(1);

  // Each request logged is one row of the next batch; a long path makes each row ~12 KB, so the
  // feed writes far more than the socket buffers and the feed's cap together can hold.
  const longPath = `/nowhere/${'x'.repeat(12_000)}`;
  let sentBytes = 0;
  for (let round = 0; round < 200 && (await watchers()) > 0; round += 1) {
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(longPath)));
    expect(answers.every((answer) => answer.status === 404)).toBe(true);
    sentBytes += 20 * longPath.length;
  }
  expect(await watchers()).toBe(0);
  // It was dropped for what it left unread, not for one batch: more went out than the cap.
  expect(sentBytes).toBeGreaterThan(FEED_MAX_QUEUED_BYTES);

  // Everyone else is still answered, and a new page can watch again.
  expect((await get('/_sandbox/time')).status).toBe(200);
  const again = await get('/_sandbox/stats');
  expect(again.status).toBe(200);

  // Reading again, the stalled client finds its connection closed after what was already sent.
  let received = 0;
  stalled.on('data', (chunk: Buffer) => (received += chunk.byteLength));
  stalled.resume();
  await new Promise<void>((resolve) => stalled.once('close', () => resolve()));
  expect(received).toBeLessThan(sentBytes);
}, 60_000);
