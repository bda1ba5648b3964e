/**
 * Run as a child process by the close() test: one call answered, one call waiting out a long
 * Retry-After, close({ timeoutMs }) or destroy(), then report what still holds the event loop and how the waiting call
 * ended. It must exit on its own, without process.exit().
 */
import { PartnerClient } from '../../src/index.js';

let retrying: () => void = () => {};
const retryScheduled = new Promise<void>((resolve) => {
  retrying = resolve;
});
const silent = (): void => {};
const client = new PartnerClient({
  baseUrl: process.env['CHILD_BASE_URL'] as string,
  key: 'pk_child_key_123456',
  secret: 'sk_child_secret_123456',
  logger: { debug: silent, info: silent, error: silent, warn: () => retrying() },
});
await client.request({ method: 'GET', path: '/api/v1.1/ping' });
const waiting = client.request({ method: 'GET', path: '/api/v1.1/busy' }).then(
  () => 'answered',
  (error: unknown) => (error as Error).name,
);
await retryScheduled;
// destroy() cuts the waiting call at once; close() lets it wait until its own timeout cuts it.
if (process.env['CHILD_MODE'] === 'destroy') await client.destroy();
else await client.close({ timeoutMs: 100 });
const waitingOutcome = await waiting;
// Standard streams, and file reads of the TypeScript loader itself (Node 22 and later may have one
// in flight), are not the client's: sockets, servers and timers are what would hold the process.
const notTheClients = new Set(['TTYWrap', 'PipeWrap', 'FSReqCallback', 'FSReqPromise']);
const handles = process.getActiveResourcesInfo().filter((name) => !notTheClients.has(name));
process.stdout.write(`${JSON.stringify({ handles, waitingOutcome })}\n`);
