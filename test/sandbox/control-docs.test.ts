/**
 * The sandbox guides' tables of the control API, held to the sandbox answering each route: every
 * `| Call | Body | Answer |` table (the control API's, the voice quality webhooks') — the status
 * and top-level members of each answer, and the members each body takes — and `| Method | Route |
 * Returns |`, each in-process method returning what its route answers.
 *
 * Not provoked: the 409 of a redelivery "while one runs", which needs a receiver held mid-answer
 * (test/sandbox/webhooks/ covers it).
 */
import { describe, expect, it } from 'vitest';
import { codeSpans, findTable, findTables } from '../docs/markdown.js';
import { type Answer, call, tokenFor, useSandbox } from './helpers.js';

const s = useSandbox({}, { resetEach: true });

/** The top-level member names of an object as a cell writes it: `{ a, b?: x, "c": [{ … }] }`. */
function membersOf(written: string): Array<{ name: string; optional: boolean; value: string }> {
  const inner = written
    .trim()
    .replace(/^\{\s*/, '')
    .replace(/\s*\}$/, '');
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of inner) {
    if ('{[<('.includes(char)) depth += 1;
    if ('}]>)'.includes(char)) depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts
    .map((part) => part.trim())
    .filter((part) => part !== '' && part !== '…')
    .map((part) => {
      const match = /^"?([\w-]+)"?(\?)?(?::\s*(.*))?$/s.exec(part);
      if (!match) throw new Error(`cannot read the member ${part} of ${written}`);
      return { name: match[1] ?? '', optional: match[2] === '?', value: match[3] ?? '' };
    });
}

/** The first code span of a cell that writes an object, `{ … }`. */
const objectIn = (cell: string): string | undefined => codeSpans(cell).find((span) => span.startsWith('{'));

/** A partner-API call with the admin token. */
async function partner(method: string, path: string, body?: unknown): Promise<Answer> {
  s.token = await tokenFor(s.sandbox);
  return call(s.sandbox, method, path, { token: s.token, body });
}

/** A failed webhook delivery (to a port nothing listens on), for the routes that need one. */
async function failedDelivery(): Promise<string> {
  const created = await partner('POST', '/api/v1.1/webhooks', {
    operator: 'Optus',
    network: 'Optus 5G',
    eventType: 'sms',
    update: true,
    webhookUrls: { messageUrl: 'http://127.0.0.1:9/unreachable' },
  });
  expect((await partner('POST', `/api/v1.1/webhooks/${created.body.data.id}/test`)).status).toBe(502);
  const { body } = await s.control('GET', '/_sandbox/deliveries');
  return body.deliveries[0].deliveryId as string;
}

/** How a route is called: its path with the parameters filled, and a body that is valid for it. */
interface RouteRequest {
  path?: string;
  body?: unknown;
}

/** How each route of the tables is called, where the path has parameters or the route takes a body. */
const requests: Record<string, () => Promise<RouteRequest>> = {
  'POST /_sandbox/force': async () => ({ body: { method: 'GET', path: '/api/v1.1/sims', status: 503 } }),
  'GET /_sandbox/requests/{id}': async () => {
    await partner('GET', '/api/v1.1/sims');
    const { body } = await s.control('GET', '/_sandbox/requests');
    return { path: `/_sandbox/requests/${body.requests.at(-1).id}` };
  },
  'POST /_sandbox/deliveries/{deliveryId}/redeliver': async () => ({ path: `/_sandbox/deliveries/${await failedDelivery()}/redeliver` }),
  'POST /_sandbox/time': async () => ({ body: { advanceMs: 1000 } }),
  'POST /_sandbox/tokens/revoke': async () => ({ body: {} }),
  'POST /_sandbox/account': async () => ({ body: { apiAccess: true } }),
  'POST /_sandbox/voice-quality/webhooks': async () => ({ body: { url: 'http://127.0.0.1:9/vq', description: 'docs' } }),
  'POST /_sandbox/voice-quality/tests': async () => ({ body: { iccid: s.sandbox.fixtures.physicalIccid, mos: 4.1 } }),
};

/** Reads an event stream until its first `batch` event, and gives that event's data. */
async function firstBatch(path: string): Promise<{ type: string | null; data: Record<string, unknown> }> {
  const controller = new AbortController();
  const response = await fetch(`${s.sandbox.url}${path}`, { signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  await partner('GET', '/api/v1.1/sims');
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before a batch: ${text}`);
      text += decoder.decode(value, { stream: true });
      const batch = /event: batch\ndata: (.*)\n/.exec(text);
      if (batch) return { type: response.headers.get('content-type'), data: JSON.parse(batch[1] ?? '{}') as Record<string, unknown> };
    }
  } finally {
    controller.abort();
  }
}

describe('the control API tables, route by route', () => {
  const rows = findTables(['Call', 'Body', 'Answer']).flatMap((table) => table.rows);
  /** Each route of a row with its own answer: `GET /a` / `DELETE /a` and `{ x }` / `{ y }` pair up. */
  const routes = rows.flatMap(([calls = '', body = '', answer = '']) => {
    const names = codeSpans(calls);
    const split = answer.split(' / ');
    const answers = split.length === names.length ? split : names.map(() => answer);
    return names.map((route, index) => ({ route, body, answer: (answers[index] ?? '').trim() }));
  });

  it('lists control routes only', () => {
    expect(routes.length).toBeGreaterThan(20);
    for (const { route } of routes) expect(route).toMatch(/^(GET|POST|DELETE) \/_sandbox\//);
  });

  it.each(routes.map(({ route, body, answer }) => [route, body, answer]))('%s answers as its row says', async (route, _body, answer) => {
    const [method = '', template = ''] = route.split(' ');
    const request: RouteRequest = (await requests[route]?.()) ?? {};
    const response = await fetch(`${s.sandbox.url}${request.path ?? template}`, {
      method,
      ...(request.body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) }),
    });
    const status = Number(/^(\d{3})\b/.exec(answer)?.[1] ?? 200);
    expect([route, response.status]).toEqual([route, status]);
    const type = response.headers.get('content-type') ?? '';
    if (answer.includes('`text/event-stream`')) {
      await response.body?.cancel();
      expect(type).toMatch(/^text\/event-stream/);
      const batch = await firstBatch(template);
      const overview = (await s.control('GET', '/_sandbox/overview')).body as Record<string, unknown>;
      expect(Object.keys(batch.data).sort()).toEqual([...Object.keys(overview), 'resync'].sort());
      return;
    }
    if (answer.includes('[inspector]')) {
      expect(type).toMatch(/^text\/html/);
      return;
    }
    const json = (await response.json()) as Record<string, unknown>;
    const written = objectIn(answer);
    if (written) {
      const members = membersOf(written);
      const required = members.filter((member) => !member.optional).map((member) => member.name);
      expect([
        route,
        Object.keys(json)
          .filter((key) => !members.some((member) => member.name === key && member.optional))
          .sort(),
      ]).toEqual([route, required.sort()]);
      for (const member of members) {
        // A member written as a list of objects (`[{ deliveryId, … }]`): the members of its items.
        const items = /^\[\s*(\{.*\})\s*\]$/s.exec(member.value)?.[1];
        const list = json[member.name];
        if (items && Array.isArray(list) && list.length > 0) {
          const keys = membersOf(items.replace(/"/g, '')).map((item) => item.name);
          for (const item of list) expect([route, member.name, Object.keys(item as object).sort()]).toEqual([route, member.name, [...keys].sort()]);
        }
        const literal = /^(true|false)$/.exec(member.value)?.[1];
        if (literal) expect(json[member.name]).toBe(literal === 'true');
      }
    }
    if (/with `id`|the new delivery/.test(answer)) expect(json).toHaveProperty(answer.includes('delivery') ? 'deliveryId' : 'id');
    const plus = /\*\*plus (?:its )?`(\w+)`\*\*/.exec(answer)?.[1];
    if (plus) expect(json).toHaveProperty(plus);
    if (answer === 'the fixtures object') expect(json).toEqual(JSON.parse(JSON.stringify(s.sandbox.fixtures)));
    if (answer.startsWith('one entry')) expect(json).toHaveProperty('id');
    if (!written && !/with `id`|the new delivery|\*\*plus|fixtures object|^one entry/.test(answer))
      throw new Error(`an answer this test cannot read: ${answer}`);
  });

  it.each(routes.filter(({ route, body }) => route.startsWith('POST') && /[{`]/.test(body)).map(({ route, body }) => [route, body]))(
    '%s takes the body members its row names',
    async (route, body) => {
      const written = objectIn(body) ?? '';
      const members = membersOf(written.replace(/'GET' \\?\| … \\?\| '\*'/, 'method'));
      const [, path = ''] = route.split(' ');
      const empty = await s.control('POST', path, { zzzzzzzzzzzz: 1 });
      expect(empty.status).toBe(400);
      const issues = empty.body.issues as string[];
      const allowed = /\(allowed: ([^)]*)\)/.exec(issues.join('\n'))?.[1]?.split(', ');
      expect([route, allowed?.sort()]).toEqual([route, members.map((member) => member.name).sort()]);
      // A member written without `?` (and not said to be optional) is required: the body without it is refused naming it.
      const missing = issues.filter((issue) => !issue.includes('unknown field'));
      for (const member of members) {
        const optional = member.optional || member.value === '"optional"' || body.includes(`\`${member.name}\` optional`);
        expect([route, member.name, missing.some((issue) => issue.startsWith(`${member.name}: `))]).toEqual([route, member.name, !optional]);
      }
    },
  );

  it('reads a request id only as the log writes it', async () => {
    const row = routes.find(({ route }) => route === 'GET /_sandbox/requests/{id}');
    const written = codeSpans(row?.answer ?? '');
    const [id, ...notIds] = written.slice(written.indexOf('id') + 1);
    await partner('GET', '/api/v1.1/sims');
    const { body } = await s.control('GET', '/_sandbox/requests');
    const last = Number(body.requests.at(-1).id);
    // The guide's forms of its id (`17`), made of the last entry's.
    const forms = notIds.map((form) => form.replace(id ?? '', String(last)).replace(/^0x\w+$/, `0x${last.toString(16)}`));
    expect((await s.control('GET', `/_sandbox/requests/${last}`)).status).toBe(200);
    for (const form of forms) expect([form, (await s.control('GET', `/_sandbox/requests/${encodeURIComponent(form)}`)).status]).toEqual([form, 404]);
    expect((await s.control('GET', '/_sandbox/requests/999999')).status).toBe(404);
  });

  it('answers 404 for a redelivery of an unknown delivery, and for a voice quality test of an ICCID not on the account', async () => {
    expect(routes.find(({ route }) => route.endsWith('/redeliver'))?.answer).toContain('; 404;');
    expect((await s.control('POST', '/_sandbox/deliveries/dlv_unknown/redeliver')).status).toBe(404);
    expect(routes.find(({ route }) => route === 'POST /_sandbox/voice-quality/tests')?.answer).toContain('404 for an ICCID not on the account');
    expect((await s.control('POST', '/_sandbox/voice-quality/tests', { iccid: '8900000000000000000' })).status).toBe(404);
  });
});

describe("the control API's methods", () => {
  const { rows } = findTable(['Method', 'Route', 'Returns']);
  const handle = () => s.sandbox as unknown as Record<string, (...args: unknown[]) => unknown>;

  /** Each method's arguments, and the route's body made of them as the Route cell writes it. */
  const args: Record<string, () => unknown[]> = {
    force: () => [{ method: 'GET', path: '/api/v1.1/sims', status: 503 }],
    clearForced: () => [],
    advanceTime: () => [1000],
    revokeTokens: () => [],
    sendSmsEvent: () => [{ operator: 'Optus', network: 'Optus 5G', text: 'hi' }],
    sendVoiceEvent: () => [{ operator: 'Optus', network: 'Optus 5G' }],
    runVoiceQualityTest: () => [{ iccid: s.sandbox.fixtures.physicalIccid }],
    setAccount: () => [{ apiAccess: true }],
    reset: () => [],
  };

  it('has a row for every control method of the sandbox object', () => {
    const named = rows.map(([method = '']) => /^`(\w+)\(/.exec(method)?.[1]);
    expect(named.sort()).toEqual(Object.keys(args).sort());
    for (const name of named) expect([name, typeof handle()[name ?? '']]).toEqual([name, 'function']);
  });

  it.each(rows.map(([method = '', route = '', returns = '']) => [/^`(\w+)\(/.exec(method)?.[1] ?? '', route, returns]))(
    '%s does what %s does, and returns %s',
    async (name, route, returns) => {
      const given = (args[name] ?? (() => []))();
      const returned = handle()[name]?.(...given);
      const [method = '', path = '', written] = (codeSpans(route)[0] ?? '').split(/ (?=[/{])/);
      // The route's body: the object the Route cell writes (`{ advanceMs }` from the method's argument), else the argument itself.
      const body = written ? Object.fromEntries(membersOf(written).map((member, index) => [member.name, given[index]])) : given[0];
      const answer = await s.control(method, path, body);
      expect([route, answer.status >= 200 && answer.status < 300]).toEqual([route, true]);
      const object = objectIn(returns);
      if (returns.startsWith('–')) expect(returned).toBeUndefined();
      else if (returns.startsWith('number of')) {
        expect(typeof returned).toBe('number');
        expect(Object.values(answer.body)).toEqual([expect.any(Number)]);
      } else if (object) {
        const members = membersOf(object);
        const keys = Object.keys(returned as object);
        expect(keys.filter((key) => !members.some((member) => member.name === key && member.optional)).sort()).toEqual(
          members
            .filter((member) => !member.optional)
            .map((member) => member.name)
            .sort(),
        );
        expect(Object.keys(answer.body).sort()).toEqual([...keys].sort());
      } else if (returns.startsWith('`ForceRule`')) {
        expect(returned).toHaveProperty('id');
        expect(Object.keys(answer.body).sort()).toEqual(Object.keys(returned as object).sort());
      } else if (returns === 'the account state') {
        expect(returned).toEqual(answer.body);
        expect(Object.keys(returned as object).sort()).toEqual(['apiAccess', 'customerMissing']);
      } else throw new Error(`a return this test cannot read: ${returns}`);
      const thrown = /`(\w+Error)` for an ICCID not on the account/.exec(returns)?.[1];
      if (thrown) expect(() => handle()[name]?.({ iccid: '8900000000000000000' })).toThrow(globalThis[thrown as 'RangeError']);
    },
  );
});
