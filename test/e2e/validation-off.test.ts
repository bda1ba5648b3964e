/**
 * `validateResponses: 'off'` trusts the server's data as sent, but never turns a surprising answer
 * into a TypeError from inside the SDK: every method of API.md's table, given data of every JSON
 * kind, ends in a result or a typed PartnerError.
 */
import { describe, expect, it } from 'vitest';
import { PartnerError, ResponseValidationError } from '../../src/index.js';
import { resourceTable } from './resource-table.js';
import { force, useAcceptingReceiver, useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 7 }, { validateResponses: 'off', maxRetries: 0 });

const receiverUrl = useAcceptingReceiver();

/** Data of every JSON kind, none of them the shape the route promises. */
const surprises: Array<[string, unknown]> = [
  ['null', null],
  ['an array', [1, 'two', null]],
  ['a string', 'text'],
  ['a number', 42],
  ['an empty object', {}],
  ['an object of wrong types', { status: 7, transactionId: 8, data: 'x', access_token: 9 }],
];

const rows = resourceTable(receiverUrl);

describe("validateResponses: 'off'", () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s ends in a result or a typed error whatever data comes back', async (_name, row) => {
    const r = run();
    for (const [, data] of surprises) {
      r.sandbox.reset();
      const context = row.setup ? await row.setup(r) : {};
      const path = row.path(r, context).split('?')[0] as string;
      await force(r.sandbox, { method: row.method, path, status: row.status ?? 200, body: row.bare ? data : { success: true, data }, times: 50 });
      const outcome = await Promise.resolve(row.call(r, context, {})).then(
        () => 'result',
        (error: unknown) => error,
      );
      if (outcome !== 'result') {
        expect(outcome, `${row.name} with ${JSON.stringify(data)}: ${String(outcome)}`).toBeInstanceOf(PartnerError);
      }
    }
  });

  it('refuses a transaction poll whose data has no status, instead of polling on or throwing a TypeError', async () => {
    const { sandbox, client } = run();
    const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
    await force(sandbox, {
      method: 'GET',
      path: `/api/v3/transactions/${handle.transactionId}`,
      status: 200,
      body: { success: true, data: null },
      times: 5,
    });
    await expect(handle.wait({ pollIntervalMs: 100 })).rejects.toBeInstanceOf(ResponseValidationError);
    await force(sandbox, {
      method: 'GET',
      path: `/api/v3/transactions/${handle.transactionId}`,
      status: 200,
      body: { success: true, data: { status: 3 } },
      times: 5,
    });
    await expect(client.transactions.wait(handle.transactionId, { pollIntervalMs: 100 })).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('still checks the token exchange, which the client reads itself', async () => {
    const { sandbox, client } = run();
    await force(sandbox, { method: 'POST', path: '/api/v1.1/auth/token', status: 200, body: { success: true, data: { access_token: 42 } } });
    await expect(client.auth.token()).rejects.toBeInstanceOf(ResponseValidationError);
  });
});
