/**
 * Endpoints known by name only (spec part 4): their request shapes are not shown, so neither the
 * client nor the sandbox holds a field to a format the spec does not give. The client sends each
 * field as written, and the sandbox takes it as written: it looks the value up, and a value the
 * account does not have ends the operation (a FAILED transaction), never a 400 for its spelling.
 * A rule the spec does show stays: portInNumber is E.164 (part 2, port-in request).
 */
import { describe, expect, it } from 'vitest';
import { RequestValidationError, TransactionFailedError } from '../../src/index.js';
import { partnerRequests, useSandbox } from './sandbox.js';

const run = useSandbox();

/** The body the sandbox received for the last request to `path`. */
function lastBodyTo(path: string): unknown {
  return partnerRequests(run().sandbox)
    .filter((request) => request.path === path)
    .at(-1)?.body;
}

describe('esim.provision', () => {
  it.each(['ops', 'ops@', 'ops@acme', ' ops@acme.example', 'OPS @ ACME'])(
    'sends email %j as written; the sandbox looks it up and ends the provisioning USER_NOT_FOUND',
    async (email) => {
      const handle = await run().client.esim.provision({ planId: run().sandbox.fixtures.pricedPlanId, email });
      expect(lastBodyTo('/api/v1.1/esim')).toEqual({ planId: run().sandbox.fixtures.pricedPlanId, email });
      const error = await handle.wait({ pollIntervalMs: 100 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TransactionFailedError);
      expect((error as TransactionFailedError).errorCode).toBe('USER_NOT_FOUND');
    },
  );

  it.each([5, null, ['Business 5GB'], { productId: 'Business 5GB' }])(
    'sends planId %j as written; the sandbox ends the provisioning PLAN_NOT_FOUND, never a 400',
    async (planId) => {
      const handle = await run().client.esim.provision({ planId: planId as never });
      expect(lastBodyTo('/api/v1.1/esim')).toEqual({ planId });
      const error = await handle.wait({ pollIntervalMs: 100 }).catch((caught: unknown) => caught);
      expect((error as TransactionFailedError).errorCode).toBe('PLAN_NOT_FOUND');
    },
  );
});

describe('teamMembers.create', () => {
  it.each(['ops', 'ops@', 'Ops Team <ops@acme.example>'])('sends email %j as written, and the sandbox invites the member under it', async (email) => {
    const created = await run().client.teamMembers.create({ name: 'Ops', email, role: 'Admin' });
    expect(created).toMatchObject({ name: 'Ops', email, role: 'Admin', status: 'invited' });
    expect(lastBodyTo('/api/v1.1/team-members')).toEqual({ name: 'Ops', email, role: 'Admin' });
    expect(await run().client.teamMembers.retrieve(email)).toMatchObject({ email, status: 'invited' });
  });
});

describe('billing.topUp', () => {
  it.each(['AUD', 'Aud', 'credits', 'au$'])('credits currency %j as written', async (currency) => {
    const handle = await run().client.billing.topUp({ amount: 5, currency });
    expect(lastBodyTo('/api/v1.1/top-up')).toEqual({ amount: 5, currency });
    const done = await handle.wait({ pollIntervalMs: 100 });
    expect(done.result).toMatchObject({ currency, amount: 5, balance: 5 });
    expect((await run().client.billing.retrieveCreditBalance()).creditBalance).toContainEqual({ currency, amount: 5 });
  });

  it.each([0, -5])('credits amount %j as written', async (amount) => {
    const before = (await run().client.billing.retrieveCreditBalance()).creditBalance.find((entry) => entry.currency === 'aud')?.amount ?? 0;
    const handle = await run().client.billing.topUp({ amount, currency: 'aud' });
    const done = await handle.wait({ pollIntervalMs: 100 });
    expect(done.result).toMatchObject({ currency: 'aud', amount, balance: Math.round((before + amount) * 100) / 100 });
  });

  it.each([42, ['8961000000000000001'], null])('sends iccid %j as written; the sandbox ends the top-up SIM_NOT_FOUND, never a 400', async (iccid) => {
    const handle = await run().client.billing.topUp({ amount: 5, iccid: iccid as never });
    const error = await handle.wait({ pollIntervalMs: 100 }).catch((caught: unknown) => caught);
    expect((error as TransactionFailedError).errorCode).toBe('SIM_NOT_FOUND');
  });
});

describe('a rule the spec shows stays', () => {
  it('portInNumber is E.164 (spec part 2): refused before anything is sent', async () => {
    const from = run().sandbox.requests().length;
    for (const portInNumber of ['0412345678', '+61 412 345 678']) {
      await expect(run().client.portIns.checkEligibility({ portInNumber })).rejects.toBeInstanceOf(RequestValidationError);
      await expect(run().client.portIns.submit({ portInNumber, iccid: run().sandbox.fixtures.physicalIccid })).rejects.toBeInstanceOf(
        RequestValidationError,
      );
    }
    expect(partnerRequests(run().sandbox, from)).toEqual([]);
  });
});
