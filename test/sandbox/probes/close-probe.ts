/**
 * Run in a child process by process.test.ts: starts a sandbox, leaves every kind of background
 * work running (pending transactions, a forced delay in flight, a delivery awaiting its answer,
 * scheduled retries, an open voice stream), closes it, and prints the active resources before,
 * during, right after close() (with the count of sockets the probe's own receivers still hold),
 * and once the receivers are closed too.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { startSandbox } from '../../../src/sandbox/index.js';

const resources = (): string[] =>
  process
    .getActiveResourcesInfo()
    .filter((r) => r !== 'TTYWrap' && r !== 'PipeWrap')
    .sort();
const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const before = resources();

// The probe's own receivers: one never answers, one answers 500 so retries get scheduled.
const held = createServer(() => undefined);
const failing = createServer((_req, res) => res.writeHead(500).end());
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await Promise.all([
  new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve)),
  new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve)),
  new Promise<void>((resolve) => wss.once('listening', resolve)),
]);
const port = (server: { address(): unknown }) => (server.address() as AddressInfo).port;

const sandbox = await startSandbox({ port: 0, transactionDelayMs: 60_000 });
/**
 * Plain node:http without keep-alive (agent: false) rather than fetch: fetch's pool keeps timers of
 * its own, which would be counted as the sandbox's.
 */
const call = (method: string, path: string, body?: unknown, token?: string) =>
  new Promise<any>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = httpRequest(
      `${sandbox.url}${path}`,
      {
        method,
        agent: false,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text === '' ? undefined : JSON.parse(text)));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
const token = (await call('POST', '/api/v1.1/auth/token', { key: sandbox.key, secret: sandbox.secret })).data.access_token;
await call('POST', '/api/v1.1/esim', {}, token);
await call(
  'POST',
  '/api/v1.1/webhooks',
  {
    operator: 'Telstra',
    network: 'Telstra 4G',
    eventType: 'sms',
    webhookUrls: { messageUrl: `http://127.0.0.1:${port(held)}/`, voiceStreamUrl: `ws://127.0.0.1:${port(wss)}/` },
  },
  token,
);
await call('POST', '/_sandbox/voice-quality/webhooks', { url: `http://127.0.0.1:${port(failing)}/` });
await call('POST', '/_sandbox/events/sms', { operator: 'Telstra', network: 'Telstra 4G' });
await call('POST', '/_sandbox/voice-quality/tests', { iccid: sandbox.fixtures.physicalIccid });
void call('POST', '/_sandbox/voice-stream', { operator: 'Telstra', network: 'Telstra 4G', durationMs: 600_000 }).catch(() => undefined);
await call('POST', '/_sandbox/force', { path: '/api/v1.1/credit-balance', delayMs: 600_000 });
void call('GET', '/api/v1.1/credit-balance', undefined, token).catch(() => undefined);
await tick(200);
const during = resources();

await sandbox.close();
await tick(50);
const afterClose = resources();
// Sockets the probe's receivers still hold on their side (a request they never answered).
const connections = (server: { getConnections(cb: (error: Error | null, count: number) => void): void }) =>
  new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)));
const receiverSockets = (await connections(held)) + (await connections(failing)) + wss.clients.size;

for (const client of wss.clients) client.terminate();
held.closeAllConnections();
failing.closeAllConnections();
await Promise.all([
  new Promise((resolve) => held.close(resolve)),
  new Promise((resolve) => failing.close(resolve)),
  new Promise((resolve) => wss.close(resolve)),
]);
await tick(50);
const after = resources();
// The sandbox clock's pending timers through its state: once closed, the sandbox answers no
// request, so GET /_sandbox/stats (which reports the same count) can no longer be asked.
process.stdout.write(JSON.stringify({ before, during, afterClose, receiverSockets, after, pendingTimers: sandbox.ctx.clock.pendingTimers }));
