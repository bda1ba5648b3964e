/**
 * Every list of the spec is a list (spec part 1 rule 5, bounds of part 8): the list routes are
 * read from the spec's part 4 tables, so a list added there fails here until the client and the
 * sandbox page it. Both sides are checked over loopback HTTP: the sandbox's raw answers, and the
 * client's list method awaited, walked with `for await`, and refused a bad page or pageSize.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Page, PagePromise, PartnerClient, RequestValidationError } from '../../src/index.js';
import { type SpecEndpoint, sharedSpecText, specEndpoints, specText } from '../helpers/spec.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';

/** GET rows of part 4's tables whose path has no parameter: a collection, or a singleton. */
function parameterlessGets(): SpecEndpoint[] {
  return specEndpoints().filter((row) => row.method === 'GET' && !row.path.includes('{'));
}

/**
 * Parameterless GETs that answer one object, not a list. A parameterless GET the spec adds later
 * counts as a list until it is named here.
 */
const SINGLETONS = new Set(['/api/v1.1/credit-balance']);

type ListCall = (client: PartnerClient, params: { page?: number; pageSize?: number }) => PagePromise<unknown>;

/** The client's list method of each list route (design/API.md names them). */
const CLIENT_LISTS: Record<string, ListCall> = {
  '/api/v1.1/sims': (client, params) => client.sims.list(params),
  '/api/v1.1/subscriptions': (client, params) => client.subscriptions.list(params),
  '/api/v1.1/port-ins': (client, params) => client.portIns.list(params),
  '/api/v1.1/team-members': (client, params) => client.teamMembers.list(params),
  '/api/v1.1/voice-quality/webhooks': (client, params) => client.voiceQuality.webhooks.list(params),
  '/api/v1.1/webhooks': (client, params) => client.webhooks.list(params),
  '/api/v1.1/webhook-deliveries': (client, params) => client.webhooks.deliveries.list(params),
  '/api/v1.1/users': (client, params) => client.users.list(params),
};

const gets = parameterlessGets();
const LISTS = gets.filter((route) => !SINGLETONS.has(route.path)).map((route) => route.path);

let sandbox: SandboxHandle;
let client: PartnerClient;
let token: string;

async function raw(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, maxRetries: 0 });
  token = (await client.auth.token()).access_token;
  // Three registrations, each tested once against a closed port: three failed delivery records.
  const operators = [
    ['Telstra', 'Telstra 4G'],
    ['Optus', 'Optus 4G'],
    ['Vodafone', 'Vodafone 4G'],
  ] as const;
  for (const [operator, network] of operators) {
    const created = await client.webhooks.create({ operator, network, eventType: 'voice', webhookUrls: { voiceUrl: 'http://127.0.0.1:1/' } });
    await client.webhooks.test(created.id).catch(() => undefined);
  }
});

afterAll(async () => {
  await client?.destroy();
  await sandbox?.close();
});

describe('the list routes of the spec', () => {
  it('are read from part 4: the eight of today, the credit balance a singleton', () => {
    expect(LISTS.length).toBeGreaterThanOrEqual(8);
    expect(LISTS).toContain('/api/v1.1/webhooks');
    expect(LISTS).toContain('/api/v1.1/users');
    for (const path of SINGLETONS) {
      const row = gets.find((route) => route.path === path);
      expect(row?.response, path).toMatch(/\bobject\b/);
    }
  });

  it('the copy of the spec in test/fixtures is the shared spec, when the shared spec is there', () => {
    const shared = sharedSpecText();
    if (shared !== undefined) expect(specText()).toBe(shared);
  });

  it('each has a list method on the client', () => {
    expect(LISTS.filter((path) => !(path in CLIENT_LISTS))).toEqual([]);
  });
});

describe.each(LISTS)('GET %s', (path) => {
  it('the sandbox answers a page with meta { page, pageSize, total, totalPages }', async () => {
    const first = await raw(`${path}?pageSize=1`);
    expect(first.status).toBe(200);
    expect(Array.isArray(first.body.data)).toBe(true);
    const { total } = first.body.meta as { total: number };
    expect(total).toBeGreaterThanOrEqual(2);
    expect(first.body.meta).toEqual({ page: 1, pageSize: 1, total, totalPages: total });
    expect(first.body.data).toHaveLength(1);
    const second = await raw(`${path}?page=2&pageSize=1`);
    expect(second.body.meta).toEqual({ page: 2, pageSize: 1, total, totalPages: total });
    expect(second.body.data).not.toEqual(first.body.data);
    const past = await raw(`${path}?page=${total + 1}&pageSize=1`);
    expect([past.status, past.body.data]).toEqual([200, []]);
  });

  it.each(['pageSize=101', 'pageSize=0', 'pageSize=1.5', 'pageSize=x', 'page=0', 'page=-1'])(
    'the sandbox answers 400 VALIDATION_ERROR naming the parameter to %s (spec part 8)',
    async (query) => {
      const answer = await raw(`${path}?${query}`);
      expect([answer.status, answer.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(answer.body.error.details.validationErrors.join(' ')).toContain(query.split('=')[0]);
    },
  );

  it('the client awaits to a Page with meta and walks every item with for await', async () => {
    const list = CLIENT_LISTS[path];
    if (!list) throw new Error(`no client list method for ${path}`);
    const page = await list(client, { pageSize: 1 });
    expect(page).toBeInstanceOf(Page);
    expect(page.data).toHaveLength(1);
    const total = page.meta?.total ?? 0;
    expect(page.meta).toEqual({ page: 1, pageSize: 1, total, totalPages: total });
    expect(page.hasNextPage()).toBe(true);
    const second = await list(client, { page: 2, pageSize: 1 });
    expect(second.pageNumber).toBe(2);

    const pageSize = Math.ceil(total / 3);
    const before = sandbox.requests().length;
    const items: unknown[] = [];
    for await (const item of list(client, { pageSize })) items.push(item);
    expect(items).toHaveLength(total);
    const sent = sandbox
      .requests()
      .slice(before)
      .filter((request) => request.path === path);
    expect(sent.map((request) => request.query['pageSize'])).toEqual(sent.map(() => String(pageSize)));
    expect(sent).toHaveLength(Math.ceil(total / pageSize));
  });

  it.each([{ pageSize: 101 }, { pageSize: 0 }, { page: 0 }, { pageSize: 2.5 }])('the client refuses %o before sending anything', async (params) => {
    const list = CLIENT_LISTS[path];
    if (!list) throw new Error(`no client list method for ${path}`);
    const before = sandbox.requests().length;
    const error: unknown = await list(client, params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).message).toContain(Object.keys(params)[0]);
    expect(sandbox.requests().length).toBe(before);
  });
});
