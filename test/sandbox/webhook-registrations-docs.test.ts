/**
 * The sandbox webhooks guide's tables, held to the sandbox over loopback: the routes of operator
 * webhook registrations ("Call | Answer"), the members PUT takes ("Member | Accepts | Effect"),
 * the authentication types ("type | body members | sent as | masked as") and the headers of
 * every delivery ("Header | Value"), read off deliveries to a receiver of the test's own.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUSPEND_AFTER_FAILURES } from '../../src/sandbox/webhooks/registrations.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { listen, type Loopback } from '../helpers/server.js';
import { type Answer, useSandbox } from './helpers.js';

const s = useSandbox({ now: '2030-01-01T00:00:00Z' }, { resetEach: true });

/** A receiver that accepts every delivery and keeps what it got. */
const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
let receiver: Loopback;
beforeAll(async () => {
  receiver = await listen((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200).end();
    });
  });
});
afterAll(() => receiver.close());

const OPTUS = { operator: 'Optus', network: 'Optus 5G' };
const unreachable = 'http://127.0.0.1:9/unreachable';

async function register(body: Record<string, unknown> = {}): Promise<Answer> {
  return s.post('/api/v1.1/webhooks', { ...OPTUS, eventType: 'sms', webhookUrls: { messageUrl: `${receiver.url}/hooks` }, ...body });
}

async function registered(body: Record<string, unknown> = {}): Promise<string> {
  const answer = await register(body);
  expect(answer.status).toBe(200);
  return answer.body.data.id as string;
}

const put = (id: string, body: unknown): Promise<Answer> => s.api('PUT', `/api/v1.1/webhooks/${id}`, body);
const problems = (answer: Answer): string[] => answer.body.error?.details?.validationErrors ?? [];

/** The members a refusal of an unknown one lists: `unknown field x (allowed: a, b)`. */
async function allowedOn(id: string, body: unknown): Promise<string[]> {
  const answer = await put(id, body);
  return /\(allowed: ([^)]*)\)/.exec(problems(answer).join('\n'))?.[1]?.split(', ') ?? [];
}

/**
 * The sandbox's view of the registration behind the newest delivery, once that delivery is over:
 * its retries (`maxAttempts` counts retries, spec part 8) are brought forward on the sandbox clock.
 */
async function afterDelivery(): Promise<{ status: string; consecutiveFailures: number }> {
  for (;;) {
    const [delivery] = (await s.control('GET', '/_sandbox/deliveries')).body.deliveries;
    if (delivery && delivery.status !== 'PENDING') return delivery.registration;
    if (delivery?.nextRetryAt) await s.advance(60_000);
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the sandbox webhooks guide's table of registration routes", () => {
  const { rows } = findTable(['Call', 'Answer']);
  const answer = (call: string): string => {
    const found = rows.find(([route]) => route === `\`${call}\``);
    if (!found) throw new Error(`no row for ${call}`);
    return found[1] ?? '';
  };
  const statusOf = (cell: string): number => Number(/^(\d{3})\b/.exec(cell)?.[1]);

  it('has a row for each route of /api/v1.1/webhooks', () => {
    expect(rows.map(([route]) => codeSpans(route ?? '')[0]).sort()).toEqual(
      [
        'POST /api/v1.1/webhooks',
        'GET /api/v1.1/webhooks',
        'GET /api/v1.1/webhooks/{id}',
        'PUT /api/v1.1/webhooks/{id}',
        'DELETE /api/v1.1/webhooks/{id}',
        'POST /api/v1.1/webhooks/{id}/test',
      ].sort(),
    );
  });

  it('creates: the registration masked, plus its signing secret, shown only then', async () => {
    const cell = answer('POST /api/v1.1/webhooks');
    const created = await register({ authentication: { type: 'bearer', token: 'tok-secret' } });
    expect(created.status).toBe(statusOf(cell));
    expect(cell).toContain('**plus `signingSecret`** (`whsec_` + 64 hex). Shown here only.');
    expect(created.body.data.signingSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(created.body.data.authentication).toEqual({ type: 'bearer', token: '***ENCRYPTED***' });
    const read = await s.get(`/api/v1.1/webhooks/${created.body.data.id}`);
    expect(read.body.data).not.toHaveProperty('signingSecret');
  });

  it('lists the registrations as its row says', async () => {
    const cell = answer('GET /api/v1.1/webhooks');
    await registered();
    const listed = await s.get('/api/v1.1/webhooks');
    expect(listed.status).toBe(statusOf(cell));
    expect(Array.isArray(listed.body.data)).toBe(true);
    if (cell.includes('a plain array')) expect(listed.body).not.toHaveProperty('meta');
    else {
      expect(cell).toMatch(/a page/);
      expect(Object.keys(listed.body.meta).sort()).toEqual(['page', 'pageSize', 'total', 'totalPages']);
      for (const bound of [/`pageSize` (\d+)\.\.(\d+)/.exec(cell)].filter((match) => match !== null)) {
        const [min, max] = [Number(bound?.[1]), Number(bound?.[2])];
        expect((await s.get(`/api/v1.1/webhooks?pageSize=${max}`)).status).toBe(200);
        expect((await s.get(`/api/v1.1/webhooks?pageSize=${max + 1}`)).status).toBe(400);
        expect((await s.get(`/api/v1.1/webhooks?pageSize=${min - 1}`)).status).toBe(400);
      }
    }
  });

  it('reads one registration, and answers an unknown id with its code', async () => {
    const cell = answer('GET /api/v1.1/webhooks/{id}');
    const id = await registered();
    expect((await s.get(`/api/v1.1/webhooks/${id}`)).status).toBe(statusOf(cell));
    const [status, code] = (/; (\d{3}) `(\w+)`/.exec(cell) ?? []).slice(1);
    const unknown = await s.get('/api/v1.1/webhooks/wh_unknown');
    expect([unknown.status, unknown.body.error.code]).toEqual([Number(status), code]);
  });

  it('updates, answering the updated registration', async () => {
    const cell = answer('PUT /api/v1.1/webhooks/{id}');
    const id = await registered();
    const updated = await put(id, { status: 'suspended' });
    expect([updated.status, updated.body.data.id, updated.body.data.status]).toEqual([statusOf(cell), id, 'suspended']);
  });

  it('deletes, answering the id and deleted, and its delivery records go with it', async () => {
    const cell = answer('DELETE /api/v1.1/webhooks/{id}');
    const id = await registered({ webhookUrls: { messageUrl: unreachable } });
    await s.post(`/api/v1.1/webhooks/${id}/test`);
    expect((await s.get(`/api/v1.1/webhook-deliveries?webhookId=${id}`)).body.data).toHaveLength(1);
    const deleted = await s.api('DELETE', `/api/v1.1/webhooks/${id}`);
    expect(deleted.status).toBe(statusOf(cell));
    expect(Object.keys(deleted.body.data).sort()).toEqual(['deleted', 'id']);
    expect(deleted.body.data).toEqual({ id, deleted: true });
    expect(cell).toContain('its delivery records go with it');
    expect((await s.get(`/api/v1.1/webhook-deliveries?webhookId=${id}`)).body.data).toEqual([]);
  });

  it('tests: the delivery record when the endpoint accepts, its code when not', async () => {
    const cell = answer('POST /api/v1.1/webhooks/{id}/test');
    const accepted = await s.post(`/api/v1.1/webhooks/${await registered()}/test`);
    expect([accepted.status, typeof accepted.body.data.deliveryId]).toEqual([statusOf(cell), 'string']);
    await s.control('POST', '/_sandbox/reset');
    const failed = await s.post(`/api/v1.1/webhooks/${await registered({ webhookUrls: { messageUrl: unreachable } })}/test`);
    const [status, code] = (/or (\d{3}) `(\w+)`/.exec(cell) ?? []).slice(1);
    expect([failed.status, failed.body.error.code]).toEqual([Number(status), code]);
  });
});

describe("the sandbox webhooks guide's table of members PUT takes", () => {
  const { rows } = findTable(['Member', 'Accepts', 'Effect']);
  const row = (member: string): string[] => rows.find(([cell]) => codeSpans(cell ?? '').includes(member)) ?? [];

  it('has a row for every member PUT takes, and no other', async () => {
    const id = await registered();
    expect(rows.flatMap(([members = '']) => codeSpans(members)).sort()).toEqual((await allowedOn(id, { zzzzzzzzzzzz: 1 })).sort());
  });

  it('takes a non-empty operator and network, and refuses a pair another registration holds with its code', async () => {
    const [, accepts = '', effect = ''] = row('operator');
    expect(accepts).toBe('non-empty string');
    const id = await registered();
    await registered({ operator: 'Telstra', network: 'Telstra 4G' });
    for (const member of ['operator', 'network']) expect([member, (await put(id, { [member]: '' })).status]).toEqual([member, 400]);
    const moved = await put(id, { operator: 'Vodafone', network: 'Vodafone 5G' });
    expect([moved.status, moved.body.data.operator]).toEqual([200, 'Vodafone']);
    const [status, code] = (/→ (\d{3}) `(\w+)`/.exec(effect) ?? []).slice(1);
    const taken = await put(id, { operator: 'Telstra', network: 'Telstra 4G' });
    expect([taken.status, taken.body.error.code]).toEqual([Number(status), code]);
  });

  it('takes the event types it lists, checking sms for SMS enablement as on create', async () => {
    const [, accepts = '', effect = ''] = row('eventType');
    const id = await registered({ eventType: 'voice' });
    for (const type of codeSpans(accepts)) expect([type, (await put(id, { eventType: type })).status]).toEqual([type, 200]);
    expect((await put(id, { eventType: 'fax' })).status).toBe(400);
    expect(effect).toContain('`sms` is checked for SMS enablement as on create');
    const sims = (await s.get('/api/v1.1/sims?pageSize=100')).body.data as Array<{ operator: string; network: string }>;
    for (const pair of new Map(sims.map((sim) => [sim.operator, { operator: sim.operator, network: sim.network }])).values()) {
      await s.control('POST', '/_sandbox/reset');
      const onCreate = (await s.post('/api/v1.1/webhooks', { ...pair, eventType: 'sms' })).status;
      await s.control('POST', '/_sandbox/reset');
      const voice = await s.post('/api/v1.1/webhooks', { ...pair, eventType: 'voice' });
      expect([pair.operator, (await put(voice.body.data.id, { eventType: 'sms' })).status]).toEqual([pair.operator, onCreate]);
    }
  });

  it('replaces authentication whole, refusing a bearer without token and the mask, with the messages it quotes', async () => {
    const [, accepts = '', effect = ''] = row('authentication');
    expect(accepts).toBe('one of the four shapes above, complete');
    const id = await registered({ authentication: { type: 'basic', username: 'u', password: 'p' } });
    const replaced = await put(id, { authentication: { type: 'api_key', key: 'k' } });
    expect(replaced.body.data.authentication).toEqual({ type: 'api_key', key: '***ENCRYPTED***', headerName: 'X-API-Key' });
    const quoted = /→ 400 `"([^"]+)"`/.exec(effect)?.[1];
    expect(problems(await put(id, { authentication: { type: 'bearer' } }))).toEqual([quoted]);
    expect(effect).toContain('the masked `***ENCRYPTED***` as a credential → 400');
    expect((await put(id, { authentication: { type: 'bearer', token: '***ENCRYPTED***' } })).status).toBe(400);
  });

  it('merges webhookUrls member by member, null removing one, absent ones kept', async () => {
    const [, accepts = ''] = row('webhookUrls');
    const id = await registered({ webhookUrls: { messageUrl: `${receiver.url}/a`, voiceUrl: `${receiver.url}/b` } });
    const count = { four: 4, five: 5 }[/object of the (\w+) URL members/.exec(accepts)?.[1] ?? ''];
    expect(await allowedOn(id, { webhookUrls: { zzzzzzzzzzzz: 'http://x' } })).toHaveLength(count ?? -1);
    const merged = await put(id, { webhookUrls: { callbackMessageUrl: `${receiver.url}/c`, voiceUrl: null } });
    expect(merged.body.data.webhookUrls).toEqual({ messageUrl: `${receiver.url}/a`, callbackMessageUrl: `${receiver.url}/c` });
  });

  it('merges retryPolicy over the current policy, each of its members optional', async () => {
    const [, accepts = ''] = row('retryPolicy');
    const id = await registered({ retryPolicy: { maxAttempts: 5, initialDelaySeconds: 7 } });
    const count = { four: 4, five: 5 }[/object of the (\w+) members/.exec(accepts)?.[1] ?? ''];
    expect(await allowedOn(id, { retryPolicy: { zzzzzzzzzzzz: 1 } })).toHaveLength(count ?? -1);
    const merged = await put(id, { retryPolicy: { maxAttempts: 2 } });
    expect(merged.body.data.retryPolicy).toMatchObject({ maxAttempts: 2, initialDelaySeconds: 7 });
  });

  it('takes active and suspended; active lifts a suspension and restarts the failure count, suspended pauses', async () => {
    const [, accepts = '', effect = ''] = row('status');
    expect(codeSpans(accepts)).toEqual(['active', 'suspended']);
    expect(effect).toContain('resets the consecutive-failure count to 0');
    const id = await registered({ webhookUrls: { messageUrl: unreachable }, retryPolicy: { maxAttempts: 1 } });
    s.sandbox.sendSmsEvent({ ...OPTUS, text: 'fails' });
    expect(await afterDelivery()).toMatchObject({ consecutiveFailures: 1 });
    expect((await put(id, { status: 'suspended' })).body.data.status).toBe('suspended');
    expect((await put(id, { status: 'active' })).body.data.status).toBe('active');
    expect((await s.control('GET', '/_sandbox/deliveries')).body.deliveries[0].registration).toMatchObject({
      status: 'active',
      consecutiveFailures: 0,
    });
    expect((await put(id, { status: 'paused' })).status).toBe(400);
    expect(SUSPEND_AFTER_FAILURES).toBe(10);
  });
});

describe("the sandbox webhooks guide's table of authentication types", () => {
  const { rows } = findTable(['type', 'body members', 'sent as', 'masked as']);
  const CREDENTIALS: Record<string, Record<string, string>> = {
    none: {},
    bearer: { token: 'tok-4f1c' },
    basic: { username: 'user-7a', password: 'pass-9b' },
    api_key: { key: 'key-2d' },
  };

  it('has a row for each type the sandbox takes', async () => {
    const id = await registered();
    const refused = problems(await put(id, { authentication: { type: 'zzzzzzzzzzzz' } })).join('\n');
    for (const [type = ''] of rows) expect(refused).toContain(codeSpans(type)[0]);
    expect(rows.map(([type]) => codeSpans(type ?? '')[0]).sort()).toEqual(Object.keys(CREDENTIALS).sort());
  });

  it.each(rows.map(([type = '', members = '', sentAs = '', maskedAs = '']) => [codeSpans(type)[0] ?? '', members, sentAs, maskedAs]))(
    '%s takes %s, is sent as %s and masked as %s',
    async (type, members, sentAs, maskedAs) => {
      const credentials = CREDENTIALS[type] ?? {};
      const named =
        members === '—'
          ? []
          : codeSpans(members).filter((member) => !members.includes(`optional \`${member}\``) && !members.includes(`(default \`${member}\``));
      expect(Object.keys(credentials).sort()).toEqual([...named].sort());
      // Every member not marked optional is required.
      for (const member of named) {
        const { [member]: _left, ...without } = credentials;
        expect([type, member, (await register({ authentication: { type, ...without } })).status]).toEqual([type, member, 400]);
      }
      const created = await register({ authentication: { type, ...credentials } });
      const masked = (await s.get(`/api/v1.1/webhooks/${created.body.data.id}`)).body.data.authentication as Record<string, string>;
      received.length = 0;
      expect((await s.post(`/api/v1.1/webhooks/${created.body.data.id}/test`)).status).toBe(200);
      const headers = received[0]?.headers ?? {};
      const headerName = /default `([\w-]+)`/.exec(members)?.[1];
      const sent: Record<string, string> = {
        nothing: '',
        'Authorization: Bearer <token>': `authorization=Bearer ${credentials['token']}`,
        'Authorization: Basic base64(username:password)': `authorization=Basic ${Buffer.from(`${credentials['username']}:${credentials['password']}`).toString('base64')}`,
        '<headerName>: <key>': `${headerName?.toLowerCase()}=${credentials['key']}`,
      };
      const expected = sent[codeSpans(sentAs)[0] ?? sentAs];
      if (expected === undefined) throw new Error(`a way of sending this test cannot read: ${sentAs}`);
      const [name, value] = expected.split('=');
      if (name) expect(headers[name]).toBe(value);
      else expect(headers).not.toHaveProperty('authorization');
      // Masked as: the members the cell writes, `***ENCRYPTED***` for each credential, `headerName` shown.
      if (maskedAs.startsWith('both')) for (const member of named) expect(masked[member]).toBe(codeSpans(maskedAs)[0]);
      else if (maskedAs.startsWith('`{')) expect(masked).toEqual(JSON.parse(codeSpans(maskedAs)[0] ?? ''));
      else {
        const [written = ''] = codeSpans(maskedAs);
        const [member = '', mask] = written.split(': ');
        expect(masked).toMatchObject({ type, [member]: JSON.parse(mask ?? '""') });
        if (maskedAs.includes('`headerName` shown')) expect(masked['headerName']).toBe(headerName);
      }
    },
  );
});

describe("the sandbox webhooks guide's table of delivery headers", () => {
  const { rows } = findTable(['Header', 'Value']);
  const value = (header: string): string => rows.find(([name]) => name === header)?.[1] ?? '';

  it('signs every delivery with the sandbox clock, the body and the signing secret, with the credential', async () => {
    expect(rows.map(([name]) => name)).toEqual(['`Content-Type`', '`X-Service-Timestamp`', '`X-Service-Signature`', 'credential']);
    const created = await register({ authentication: { type: 'bearer', token: 'tok-4f1c' } });
    const secret = created.body.data.signingSecret as string;
    received.length = 0;
    await s.advance(60_000);
    const clock = Date.parse((await s.control('GET', '/_sandbox/time')).body.now as string) / 1000;
    await s.post(`/api/v1.1/webhooks/${created.body.data.id}/test`);
    const [delivery] = received;
    const headers = delivery?.headers ?? {};
    expect(headers['content-type']).toBe(codeSpans(value('`Content-Type`'))[0]);
    expect(value('`X-Service-Timestamp`')).toBe('sandbox-clock Unix seconds of this attempt');
    const timestamp = Number(headers['x-service-timestamp']);
    expect(Number.isInteger(timestamp)).toBe(true);
    expect(Math.abs(timestamp - clock)).toBeLessThan(5);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(headers['x-service-signature'])) ?? [];
    expect(codeSpans(value('`X-Service-Signature`'))[0]).toBe(
      't=<that timestamp>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>" keyed with signingSecret>',
    );
    expect(Number(t)).toBe(timestamp);
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${delivery?.body}`).digest('hex'));
    expect(value('credential')).toBe('per `authentication` above');
    expect(headers['authorization']).toBe('Bearer tok-4f1c');
  });
});
