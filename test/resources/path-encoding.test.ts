import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/index.js';
import { useResourcesServer } from './use-server.js';

const use = useResourcesServer();

/** Every method with a path parameter: the call, and the path around the parameter's segment. */
const methods: Array<[string, (value: string) => PromiseLike<unknown>, string, string]> = [
  ['sims.retrieveSubscription', (v) => use().client.sims.retrieveSubscription(v), '/api/v1.1/sims/', '/subscription'],
  ['sims.renewNumber', (v) => use().client.sims.renewNumber(v), '/api/v1.1/sims/', '/renew-number'],
  ['subscriptions.cancel', (v) => use().client.subscriptions.cancel(v), '/api/v1.1/subscriptions/', '/cancel'],
  ['plans.retrieve', (v) => use().client.plans.retrieve(v), '/api/v1.1/plans/', ''],
  ['esim.retrieveQr', (v) => use().client.esim.retrieveQr(v), '/api/v1.1/esim/', '/qr'],
  ['teamMembers.retrieve', (v) => use().client.teamMembers.retrieve(v), '/api/v1.1/team-members/', ''],
  ['simGroups.retrieve', (v) => use().client.simGroups.retrieve(v), '/api/v1.1/sim-groups/', ''],
  ['userGroups.delete', (v) => use().client.userGroups.delete(v), '/api/v1.1/user-groups/', ''],
  ['devices.assign', (v) => use().client.devices.assign(v, { email: 'emp@example.com' }), '/api/v1.1/devices/', '/assign'],
  ['webhooks.retrieve', (v) => use().client.webhooks.retrieve(v), '/api/v1.1/webhooks/', ''],
  ['webhooks.update', (v) => use().client.webhooks.update(v, {}), '/api/v1.1/webhooks/', ''],
  ['webhooks.delete', (v) => use().client.webhooks.delete(v), '/api/v1.1/webhooks/', ''],
  ['webhooks.test', (v) => use().client.webhooks.test(v), '/api/v1.1/webhooks/', '/test'],
  ['webhooks.deliveries.redeliver', (v) => use().client.webhooks.deliveries.redeliver(v), '/api/v1.1/webhook-deliveries/', '/redeliver'],
  ['transactions.retrieve', (v) => use().client.transactions.retrieve(v), '/api/v3/transactions/', ''],
  ['orders.retrieve', (v) => use().client.orders.retrieve(v), '/api/v1.1/orders/', ''],
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
        use().server.requests.length = 0;
        await Promise.resolve(call(value)).catch(() => undefined);
        const path = use().server.requests[0]?.path ?? '';
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
    expect(use().server.requests).toHaveLength(0);
  });
});
