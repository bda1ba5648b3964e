/**
 * Node 20's diagnostics_channel registry forgets a channel when an older channel of the same name
 * is collected (its finalizer deletes the name, whichever channel the name holds by then). A
 * subscriber by name must still see every call of a client made in between.
 */
import diagnostics from 'node:diagnostics_channel';
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect, it } from 'vitest';
import { PartnerClient, REQUEST_END_CHANNEL, REQUEST_ERROR_CHANNEL, REQUEST_START_CHANNEL } from '../../src/index.js';

const NAMES = [REQUEST_START_CHANNEL, REQUEST_END_CHANNEL, REQUEST_ERROR_CHANNEL];
const TOKEN = { access_token: 'token', token_type: 'Bearer', expires_in: 3600, expires_at: '2099-01-01T00:00:00.000Z' };
const PAGE = { success: true, data: [], meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } };

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

it('publishes where a subscriber by name listens, after an older channel of the same name was collected', async () => {
  const fetchStub = async (url: string | URL | Request): Promise<Response> =>
    Response.json(String(url).includes('/auth/') ? { success: true, data: TOKEN } : PAGE);
  // Channels of the SDK's names that nothing holds: collected, their finalizers still to run.
  for (const name of NAMES) diagnostics.channel(name);
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  // Made in the same task: what the client uses now is registered after them.
  const client = new PartnerClient({ baseUrl: 'https://partner.example', key: 'k', secret: 's', fetch: fetchStub });
  await client.sims.list();
  // The finalizers have run by now: a subscriber by name gets the registry's channel.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const seen: unknown[] = [];
  const handler = (message: unknown): void => void seen.push(message);
  diagnostics.subscribe(REQUEST_END_CHANNEL, handler);
  try {
    await client.sims.list();
    expect(seen).toHaveLength(1);
  } finally {
    diagnostics.unsubscribe(REQUEST_END_CHANNEL, handler);
    await client.close();
  }
});
