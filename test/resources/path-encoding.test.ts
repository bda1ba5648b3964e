import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PartnerClient, RequestValidationError } from '../../src/index.js';
import { type ResourcesServer, startResourcesServer } from '../helpers/resources-server.js';

let server: ResourcesServer;
let client: PartnerClient;
beforeAll(async () => {
  server = await startResourcesServer();
  client = server.client();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

/** Every method with a path parameter: the call, and the path around the parameter's segment. */
const methods: Array<[string, (value: string) => PromiseLike<unknown>, string, string]> = [
  ['sims.retrieveSubscription', (v) => client.sims.retrieveSubscription(v), '/api/v1.1/sims/', '/subscription'],
  ['sims.renewNumber', (v) => client.sims.renewNumber(v), '/api/v1.1/sims/', '/renew-number'],
  ['subscriptions.cancel', (v) => client.subscriptions.cancel(v), '/api/v1.1/subscriptions/', '/cancel'],
  ['plans.retrieve', (v) => client.plans.retrieve(v), '/api/v1.1/plans/', ''],
  ['esim.retrieveQr', (v) => client.esim.retrieveQr(v), '/api/v1.1/esim/', '/qr'],
  ['teamMembers.retrieve', (v) => client.teamMembers.retrieve(v), '/api/v1.1/team-members/', ''],
  ['simGroups.retrieve', (v) => client.simGroups.retrieve(v), '/api/v1.1/sim-groups/', ''],
  ['userGroups.delete', (v) => client.userGroups.delete(v), '/api/v1.1/user-groups/', ''],
  ['devices.assign', (v) => client.devices.assign(v, { email: 'emp@example.com' }), '/api/v1.1/devices/', '/assign'],
  ['webhooks.retrieve', (v) => client.webhooks.retrieve(v), '/api/v1.1/webhooks/', ''],
  ['webhooks.update', (v) => client.webhooks.update(v, {}), '/api/v1.1/webhooks/', ''],
  ['webhooks.delete', (v) => client.webhooks.delete(v), '/api/v1.1/webhooks/', ''],
  ['webhooks.test', (v) => client.webhooks.test(v), '/api/v1.1/webhooks/', '/test'],
  ['webhooks.deliveries.redeliver', (v) => client.webhooks.deliveries.redeliver(v), '/api/v1.1/webhook-deliveries/', '/redeliver'],
  ['transactions.retrieve', (v) => client.transactions.retrieve(v), '/api/v3/transactions/', ''],
  ['orders.retrieve', (v) => client.orders.retrieve(v), '/api/v1.1/orders/', ''],
];

/** Path parameters partners really meet, and any other non-blank text. */
const parameter = fc.oneof(
  fc.constantFrom('ann+ops@example.com', 'Sales/East', '..', '.', 'Business 5GB', 'Équipe Nord ü', '50%', 'a?b#c', '%2F', '🚀 fleet'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }).filter((value) => value.trim() !== ''),
);

describe('path parameters', () => {
  it.each(methods)('%s sends its parameter as exactly one segment that decodes back to it', async (_name, call, prefix, suffix) => {
    await fc.assert(
      fc.asyncProperty(parameter, async (value) => {
        server.requests.length = 0;
        await Promise.resolve(call(value)).catch(() => undefined);
        const path = server.requests[0]?.path ?? '';
        expect(path.startsWith(prefix) && path.endsWith(suffix)).toBe(true);
        const segment = path.slice(prefix.length, path.length - suffix.length);
        expect(segment).not.toMatch(/[/?#]/);
        expect(segment === '.' || segment === '..').toBe(false);
        expect(decodeURIComponent(segment)).toBe(value);
      }),
      { numRuns: 40 },
    );
  });

  it.each(methods)('%s refuses a blank or malformed (lone surrogate) parameter before sending', async (_name, call) => {
    for (const value of ['', '  ', '\uD800', `x\uDFFF`]) {
      await expect(Promise.resolve().then(() => call(value))).rejects.toBeInstanceOf(RequestValidationError);
    }
    expect(server.requests).toHaveLength(0);
  });
});
