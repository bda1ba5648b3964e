/**
 * Run as a child process by process-exit.test.ts: calls that meet a server-imposed wait, or a
 * wait() between polls, then `close()`. It must exit on its own, without process.exit(); it
 * prints how each call ended and what still holds the event loop.
 */
import { PartnerClient } from '../../src/index.js';

const mode = process.env['CHILD_MODE'];
const client = new PartnerClient({
  baseUrl: process.env['CHILD_BASE_URL'] as string,
  key: 'pk_child_key_123456',
  secret: 'sk_child_secret_123456',
  maxServerWaitMs: 150,
});
const outcome = (call: Promise<unknown>): Promise<string> =>
  call.then(
    () => 'answered',
    (error: unknown) => (error as Error).name,
  );

const outcomes: Array<Promise<string>> = [];
if (mode === 'reset') {
  // The account's own limit, none left, a reset a day away: the next calls of every route wait for
  // it as long as a server's pause is believed (maxServerWaitMs), then ask again.
  await client.request({ method: 'GET', path: '/api/v1.1/exhausted' });
  outcomes.push(outcome(client.request({ method: 'GET', path: '/api/v1.1/exhausted' })));
  outcomes.push(outcome(client.request({ method: 'GET', path: '/api/v1.1/ping' })));
} else if (mode === 'retry-after') {
  // A 429 whose Retry-After is past the cap: the call fails at once, and the route is paused for
  // maxServerWaitMs, not the day the server claimed.
  outcomes.push(outcome(client.request({ method: 'GET', path: '/api/v1.1/throttled' })));
  await outcomes[0];
  outcomes.push(outcome(client.request({ method: 'GET', path: '/api/v1.1/throttled' })));
} else {
  // A wait() that sleeps a minute between two polls.
  const waiting = outcome(client.transactions.wait('tx_1', { pollIntervalMs: 60_000 }));
  outcomes.push(waiting);
  await client.transactions.retrieve('tx_1');
}
await client.close();
const ended = await Promise.all(outcomes);
// Standard streams, and file reads of the loader (Node 22 and later may have one in flight), are
// not the client's: sockets, servers and timers are what would hold the process.
const notTheClients = new Set(['TTYWrap', 'PipeWrap', 'FSReqCallback', 'FSReqPromise']);
const handles = process.getActiveResourcesInfo().filter((name) => !notTheClients.has(name));
process.stdout.write(`${JSON.stringify({ handles, ended })}\n`);
