/**
 * The resources guide's table of `webhooks.update()` members ("Member | Type | Effect"), held to
 * the client against the sandbox: the members the client takes, what it refuses before sending
 * (the Type column), and what the update does (the Effect column).
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, RequestValidationError, type WebhookUpdateParams } from '../../src/index.js';
import { SUSPEND_AFTER_FAILURES } from '../../src/sandbox/webhooks/registrations.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { partnerRequests, useSandbox } from '../e2e/sandbox.js';

const run = useSandbox({}, {}, { auditSpans: false });

const { rows } = findTable(['Member', 'Type', 'Effect']);
const row = (member: string): string[] => {
  const found = rows.find(([cell]) => codeSpans(cell ?? '').includes(member));
  if (!found) throw new Error(`no row for ${member}`);
  return found;
};
const loose = (body: object): WebhookUpdateParams => body;

async function registration(operator = 'Optus', network = 'Optus 5G') {
  return run().client.webhooks.create({ operator, network, eventType: 'sms', update: true, webhookUrls: { messageUrl: 'http://127.0.0.1:9/a' } });
}

/** What update() ended with, and whether it sent anything. */
async function update(
  id: string,
  body: WebhookUpdateParams,
): Promise<{ error: unknown; sent: boolean; result: Record<string, unknown> | undefined }> {
  const { client, sandbox } = run();
  const before = partnerRequests(sandbox).length;
  try {
    const result = (await client.webhooks.update(id, body)) as unknown as Record<string, unknown>;
    return { error: undefined, sent: partnerRequests(sandbox).length > before, result };
  } catch (error) {
    return { error, sent: partnerRequests(sandbox).length > before, result: undefined };
  }
}

/** The refusal of an unknown member lists the allowed ones. */
async function allowed(id: string, body: object): Promise<string[]> {
  const { error } = await update(id, loose(body));
  expect(error).toBeInstanceOf(RequestValidationError);
  return /\(allowed: ([^)]*)\)/.exec((error as Error).message)?.[1]?.split(', ') ?? [];
}

/** The client refuses it before sending anything. */
async function refusedBeforeSending(id: string, body: object): Promise<boolean> {
  const { error, sent } = await update(id, loose(body));
  return error instanceof RequestValidationError && !sent;
}

describe("the resources guide's table of webhooks.update() members", () => {
  it('has a row for every member update() takes, and no other', async () => {
    const { id } = await registration();
    expect(rows.flatMap(([members = '']) => codeSpans(members)).sort()).toEqual((await allowed(id, { zzzzzzzzzzzz: 1 })).sort());
  });

  it('takes a non-empty operator and network, moves the registration, and is refused with 409 onto a held pair', async () => {
    const [, type, effect] = row('operator');
    expect([type, effect]).toEqual(['non-empty string', 'moves the registration (409 when another holds the pair)']);
    const { id } = await registration();
    await registration('Telstra', 'Telstra 4G');
    expect([await refusedBeforeSending(id, { operator: '' }), await refusedBeforeSending(id, { network: '' })]).toEqual([true, true]);
    expect((await update(id, { operator: 'Vodafone', network: 'Vodafone 5G' })).result).toMatchObject({
      operator: 'Vodafone',
      network: 'Vodafone 5G',
    });
    const taken = await update(id, { operator: 'Telstra', network: 'Telstra 4G' });
    expect(taken.error).toBeInstanceOf(ConflictError);
    expect((taken.error as ConflictError).status).toBe(409);
  });

  it('takes the event types it lists, replacing the one before', async () => {
    const [, type = '', effect] = row('eventType');
    expect(effect).toBe('replaced');
    const { id } = await registration();
    for (const eventType of codeSpans(type).map((span) => span.replace(/^'|'$/g, ''))) {
      expect([eventType, (await update(id, loose({ eventType }))).result?.['eventType']]).toEqual([eventType, eventType]);
    }
    expect(await refusedBeforeSending(id, { eventType: 'fax' })).toBe(true);
  });

  it('replaces authentication whole, with each type it lists; bearer needs its token; the mask is refused', async () => {
    const [, type = '', effect = ''] = row('authentication');
    const types = codeSpans(type).map((span) => /type: '(\w+)'/.exec(span)?.[1]);
    expect(types).toEqual(['none', 'bearer', 'basic', 'api_key']);
    const credentials: Record<string, object> = { none: {}, bearer: { token: 't' }, basic: { username: 'u', password: 'p' }, api_key: { key: 'k' } };
    const { id } = await registration();
    for (const one of types) {
      const { result } = await update(id, loose({ authentication: { type: one, ...credentials[one ?? ''] } }));
      expect([one, (result?.['authentication'] as { type: string } | undefined)?.type]).toEqual([one, one]);
    }
    expect(effect).toContain('`bearer` needs its `token`');
    expect(await refusedBeforeSending(id, { authentication: { type: 'bearer' } })).toBe(true);
    expect(effect).toContain('the masked `***ENCRYPTED***` is refused as a credential');
    expect(await refusedBeforeSending(id, { authentication: { type: 'bearer', token: '***ENCRYPTED***' } })).toBe(true);
  });

  it('merges webhookUrls member by member, null removing a URL', async () => {
    const [, type, effect] = row('webhookUrls');
    expect([type, effect]).toEqual(['each member a URL or `null`', 'merged member by member; `null` removes that URL']);
    const { id } = await registration();
    const merged = await update(id, { webhookUrls: { voiceUrl: 'http://127.0.0.1:9/v' } });
    expect(merged.result?.['webhookUrls']).toEqual({ messageUrl: 'http://127.0.0.1:9/a', voiceUrl: 'http://127.0.0.1:9/v' });
    expect((await update(id, { webhookUrls: { messageUrl: null } })).result?.['webhookUrls']).toEqual({ voiceUrl: 'http://127.0.0.1:9/v' });
    expect(await refusedBeforeSending(id, { webhookUrls: { messageUrl: 'not a url' } })).toBe(true);
  });

  it('merges retryPolicy, its four members within the bounds of spec part 8', async () => {
    const [, type = '', effect] = row('retryPolicy');
    expect(effect).toBe('merged over the current policy');
    const { id } = await registration();
    const count = { four: 4, five: 5 }[/^the (\w+) members/.exec(type)?.[1] ?? ''];
    expect(await allowed(id, { retryPolicy: { zzzzzzzzzzzz: 1 } })).toHaveLength(count ?? -1);
    await update(id, { retryPolicy: { initialDelaySeconds: 7 } });
    expect((await update(id, { retryPolicy: { maxAttempts: 2 } })).result?.['retryPolicy']).toMatchObject({ maxAttempts: 2, initialDelaySeconds: 7 });
    // Spec part 8: maxAttempts 1..10, initialDelaySeconds 1..60, maxDelaySeconds 60..3600.
    for (const bad of [
      { maxAttempts: 11 },
      { maxAttempts: 0 },
      { initialDelaySeconds: 61 },
      { maxDelaySeconds: 59 },
      { backoffStrategy: 'random' },
    ]) {
      expect([bad, await refusedBeforeSending(id, { retryPolicy: bad })]).toEqual([bad, true]);
    }
  });

  it("takes active and suspended; 'active' lifts a suspension, and the sandbox restarts its count of failures", async () => {
    const [, type = '', effect = ''] = row('status');
    expect(codeSpans(type)).toEqual(["'active'", "'suspended'"]);
    const { id } = await registration();
    expect((await update(id, { status: 'suspended' })).result?.['status']).toBe('suspended');
    expect((await update(id, { status: 'active' })).result?.['status']).toBe('active');
    expect(await refusedBeforeSending(id, { status: 'paused' })).toBe(true);
    expect(Number(/count of (\d+) failures/.exec(effect)?.[1])).toBe(SUSPEND_AFTER_FAILURES);
  });
});
