/**
 * Every row of API.md's resource table, against the sandbox: the request as the server received
 * it (method, raw path, query, body, bearer, status), and the client's result compared with the
 * raw wire answer. Reads are compared with the same GET over plain fetch; writes with the
 * sandbox's idempotent replay of the very same request (same Idempotency-Key, same body), which
 * answers the original response verbatim (spec part 8 rule 4).
 */
import { describe, expect, it } from 'vitest';
import { type Middleware, Page, TransactionHandle } from '../../src/index.js';
import type { LoggedRequest } from '../../src/sandbox/index.js';
import { type Row, resourceTable } from './resource-table.js';
import { type SandboxRun, partnerRequests, rawCall, rawToken, useAcceptingReceiver, useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 7 });

/** A partner endpoint that accepts every delivery, so that webhooks.test succeeds. */
const receiverUrl = useAcceptingReceiver();

/** What the client handed back, in the shape of the wire's data. */
function asWireData(result: unknown): unknown {
  if (result instanceof Page) return { data: result.data, meta: result.meta };
  if (result instanceof TransactionHandle) return result.acceptance;
  return result;
}

function withoutVolatile(value: unknown, volatile: string[] = []): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => !volatile.includes(name)));
}

/** The wire's data of an answer: the envelope's `data` (with `meta` for pages), or the bare body. */
function wireData(row: Row, result: unknown, body: unknown): unknown {
  if (row.bare) return body;
  const { data, meta } = body as { data: unknown; meta?: unknown };
  return result instanceof Page ? { data, meta } : data;
}

async function oracleAnswer(row: Row, sent: LoggedRequest, key: string, r: SandboxRun): Promise<unknown> {
  const body = sent.body ?? undefined;
  if (row.oracle === 'read') {
    const token = row.bearer === false ? undefined : await rawToken(r.sandbox);
    const answer = await rawCall(r.sandbox, { method: 'GET', path: sent.path, query: sent.query, ...(token ? { token } : {}) });
    expect(answer.status).toBe(200);
    return answer.body;
  }
  if (row.oracle === 'repeat') {
    const answer = await rawCall(r.sandbox, { method: sent.method, path: sent.path, body });
    expect(answer.status).toBe(sent.status);
    return answer.body;
  }
  const answer = await rawCall(r.sandbox, { method: sent.method, path: sent.path, body, token: await rawToken(r.sandbox), idempotencyKey: key });
  expect(answer.headers.get('idempotency-replayed')).toBe('true');
  expect(answer.status).toBe(sent.status);
  return answer.body;
}

const rows = resourceTable(receiverUrl);

describe('every method of the resource table, against the sandbox', () => {
  it('covers every row of API.md', () => {
    expect(rows.map((row) => row.name)).toEqual([
      'auth.token',
      'sims.list',
      'sims.retrieveSubscription',
      'sims.renewNumber',
      'subscriptions.list',
      'subscriptions.cancel',
      'plans.retrieve',
      'plans.purchase',
      'plans.purchaseAsync',
      'esim.retrieveQr',
      'esim.provision',
      'portIns.list',
      'portIns.checkEligibility',
      'portIns.submit',
      'billing.retrieveCreditBalance',
      'billing.topUp',
      'teamMembers.list',
      'teamMembers.retrieve',
      'teamMembers.create',
      'simGroups.retrieve',
      'userGroups.delete',
      'devices.assign',
      'sms.send',
      'voiceQuality.webhooks.list',
      'webhooks.create',
      'webhooks.list',
      'webhooks.retrieve',
      'webhooks.update',
      'webhooks.delete',
      'webhooks.test',
      'webhooks.deliveries.list',
      'webhooks.deliveries.redeliver',
      'transactions.retrieve',
      'transactions.wait',
      'orders.retrieve',
      'users.list',
      'request (escape hatch)',
    ]);
  });

  it.each(rows)('$name sends the documented request and returns the unwrapped answer', async (row) => {
    const r = run();
    const context = row.setup ? await row.setup(r) : {};
    // resolved before the call: the sandbox's fixtures follow its state (an assigned device is no longer "unassigned")
    const expected = {
      method: row.method,
      path: row.path(r, context),
      query: (typeof row.query === 'function' ? row.query(r, context) : row.query) ?? {},
    };
    const expectedBody = row.body ? row.body(r, context) : null;
    const from = r.sandbox.requests().length;
    const key = `e2e ${row.name} ${from}`;
    // Each method names itself to middleware as the table does; the escape hatch is 'request'.
    const operations: string[] = [];
    const middleware: Middleware[] = [
      async (request, next, context) => {
        operations.push(context.operation);
        return next(request);
      },
    ];
    const result = await row.call(r, context, row.oracle === 'replay' ? { idempotencyKey: key, middleware } : { middleware });
    if (row.name !== 'transactions.wait') {
      expect(new Set(operations)).toEqual(new Set([row.name === 'request (escape hatch)' ? 'request' : row.name]));
    }

    const log = row.name === 'auth.token' ? r.sandbox.requests().slice(from) : partnerRequests(r.sandbox, from);
    if (!row.polls) expect(log).toHaveLength(1);
    const sent = log[0] as LoggedRequest;
    for (const request of log) {
      expect(request).toMatchObject(expected);
      expect(request.body).toEqual(expectedBody);
      expect(request.headers['authorization'] !== undefined).toBe(row.bearer !== false);
    }
    expect(log.at(-1)?.status).toBe(row.status ?? 200);
    if (row.oracle === 'replay') expect(sent.headers['idempotency-key']).toBe(key);

    if (typeof row.oracle === 'function') {
      await row.oracle(result, r);
      return;
    }
    const wire = wireData(row, result, await oracleAnswer(row, sent, key, r));
    expect(withoutVolatile(asWireData(result), row.volatile)).toEqual(withoutVolatile(wire, row.volatile));
  });
});
