/**
 * Resumable operations against the sandbox: a handle's `resumeToken` gives the same operation
 * back to another client (as another process or a later request would), its `wait()` typed as the
 * original's; a token that is not one, of another version, or of another operation is refused,
 * saying why, before anything is sent.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type EsimProvisioningResult, PartnerClient, RequestValidationError, TransactionHandle } from '../../src/index.js';
import { partnerRequests, useSandbox } from './sandbox.js';

const run = useSandbox();

/** A client of its own, as another process would have. */
function anotherClient(): PartnerClient {
  const { sandbox } = run();
  return new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
}

function refusal(resume: () => unknown): RequestValidationError {
  try {
    resume();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return error as RequestValidationError;
  }
  throw new Error('resume() accepted the token');
}

describe('a resume token', () => {
  it('gives the operation back to another client, whose wait() resolves with the typed result', async () => {
    const { client, sandbox } = run();
    const started = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
    const token = started.resumeToken;
    const other = anotherClient();
    try {
      const resumed = other.transactions.resume(token, 'esim.provision');
      expect(resumed).toBeInstanceOf(TransactionHandle);
      expect(resumed.transactionId).toBe(started.transactionId);
      expect(resumed.statusEndpoint).toBe(started.statusEndpoint);
      expect(resumed.resumeToken).toBe(token);
      const done = await resumed.wait({ pollIntervalMs: 100 });
      expectTypeOf(done.result).toEqualTypeOf<EsimProvisioningResult>();
      expect(done.status).toBe('COMPLETED');
      expect(done.result.iccid).toMatch(/^89\d+$/);
      // The same transaction as the original handle reads.
      expect((await started.wait({ pollIntervalMs: 100 })).result).toEqual(done.result);
      // Untyped without the operation named, the same transaction all the same.
      expect((await other.transactions.resume(token).wait()).result).toEqual(done.result);
    } finally {
      await other.close();
    }
  });

  it.each([
    ['plans.purchaseAsync', (c: PartnerClient, planId: string, iccid: string) => c.plans.purchaseAsync({ planId, iccid })],
    ['billing.topUp', (c: PartnerClient) => c.billing.topUp({ amount: 5, currency: 'aud' })],
    ['portIns.submit', (c: PartnerClient, _planId: string, iccid: string) => c.portIns.submit({ portInNumber: '+61400123456', iccid })],
  ] as const)('comes with every asynchronous operation: %s', async (operation, start) => {
    const { client, sandbox } = run();
    const handle = await start(client, sandbox.fixtures.pricedPlanId, sandbox.fixtures.physicalIccid);
    const resumed = client.transactions.resume(handle.resumeToken, operation);
    expect(resumed.transactionId).toBe(handle.transactionId);
    expect((await resumed.wait({ pollIntervalMs: 100 })).status).toBe('COMPLETED');
  });

  it('holds no credential and no result, and stays short', async () => {
    const { client, sandbox } = run();
    const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
    await handle.wait({ pollIntervalMs: 100 });
    const token = handle.resumeToken;
    expect(token).toMatch(/^v1\.[\w-]+$/);
    expect(token.length).toBeLessThan(80);
    const decoded = Buffer.from(token.slice(3), 'base64url').toString('utf8');
    expect(JSON.parse(decoded)).toEqual(['esim.provision', handle.transactionId]);
    for (const secret of [sandbox.key, sandbox.secret]) expect(token).not.toContain(secret);
  });

  it.each([
    ['not a string', 42, /^transactions\.resume: invalid request: token: must be a string \(got number\)$/],
    ['not a token', 'txn_0002a6f783e8ec504048', /is not a resume token: it must start with 'v1\.'/],
    ['of another version', 'v2.WyJlc2ltLnByb3Zpc2lvbiIsInR4biJd', /is a resume token of version v2, which this version of the SDK does not read/],
    ['cut short', 'v1.WyJlc2ltLnByb3Zpc2', /is malformed/],
    ['not base64url', 'v1.WyJlc2lt+/=', /is malformed/],
    ['base64url of other JSON', `v1.${Buffer.from('{"a":1}').toString('base64url')}`, /is malformed/],
    ['with a control character in the id', `v1.${Buffer.from(JSON.stringify(['esim.provision', 'txn\n1'])).toString('base64url')}`, /is malformed/],
    ['too long', `v1.${'A'.repeat(4000)}`, /is 4003 characters long, more than a resume token's 2048/],
  ])('refuses one %s, before anything is sent', (_, token, message) => {
    const { client, sandbox } = run();
    const from = sandbox.requests().length;
    expect(refusal(() => client.transactions.resume(token as string)).message).toMatch(message);
    expect(partnerRequests(sandbox, from)).toEqual([]);
  });

  it('refuses a token of another operation than the one named, and an operation that is none', async () => {
    const { client } = run();
    const topUp = await client.billing.topUp({ amount: 5, currency: 'aud' });
    expect(refusal(() => client.transactions.resume(topUp.resumeToken, 'esim.provision')).message).toMatch(
      /token: is a resume token of billing\.topUp, not of esim\.provision$/,
    );
    expect(refusal(() => client.transactions.resume(topUp.resumeToken, 'billing.topup' as never)).message).toMatch(
      /operation: unknown asynchronous operation billing\.topup: did you mean billing\.topUp\?$/,
    );
    // @ts-expect-error an operation that does not exist
    expect(() => client.transactions.resume(topUp.resumeToken, 'sims.list')).toThrow(RequestValidationError);
  });
});
