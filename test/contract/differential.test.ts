/**
 * One contract, two implementations: the client and the sandbox are written apart, so that each
 * can catch the other's mistakes. For every endpoint of spec part 4 (read from the spec's tables,
 * so a route added there fails here until it is in the catalogue) and every input field (path,
 * query, body, nested members), the same generated values go to both: the client refuses a value
 * (RequestValidationError, nothing sent) exactly when the sandbox answers it with a validation
 * error (400 VALIDATION_ERROR or MISSING_FIELDS), or the difference is one docs/shapes.md lists.
 * Every field gets every value of its kind, boundaries included: a check may belong to one field
 * or one location (the lone-surrogate check of query values), so removing any one check of either
 * side fails the test.
 *
 * Seeded: the seed is printed; CONTRACT_SEED=<n> reruns with another, CONTRACT_SAMPLES=<n> draws
 * more random values per field (default 3) on top of the fixed boundary values.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ConfigurationError, PartnerClient, RequestValidationError } from '../../src/index.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { CATALOGUE, type Entry, type Field, type Input, type Live } from './catalogue.js';
import { DOCUMENTED, type Disagreement } from './documented.js';
import { valuesOf } from './values.js';
import { specEndpoints } from '../helpers/spec.js';

const SEED = Number(process.env['CONTRACT_SEED'] ?? 20_240_917);
const SAMPLES = Number(process.env['CONTRACT_SAMPLES'] ?? 3);
const SHAPES = new URL('../../docs/shapes.md', import.meta.url);

/** The input with `value` at the field's place; undefined removes the member. */
function withValue(base: Input, field: Field, value: unknown): Input {
  const input: Input = { params: { ...base.params }, query: { ...base.query }, body: base.body && structuredClone(base.body) };
  if (field.in === 'body' && field.name === '') return { ...input, body: value as Record<string, unknown> };
  let target: Record<string, unknown> = field.in === 'path' ? input.params : field.in === 'query' ? input.query : (input.body ??= {});
  const names = field.name.split('.');
  for (const name of names.slice(0, -1)) {
    const next = target[name];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return input;
    target = next as Record<string, unknown>;
  }
  const last = names.at(-1) as string;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return input;
}

/** Whether `a` and `b` are the same JSON data (-0 is 0, a member whose value is undefined is absent). */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const entries = (value: object) => Object.entries(value).filter(([, item]) => item !== undefined);
  const left = Array.isArray(a) ? [...a.entries()] : entries(a);
  const right = new Map<unknown, unknown>(Array.isArray(b) ? [...(b as unknown[]).entries()] : entries(b));
  return left.length === right.size && left.every(([key, item]) => right.has(key) && sameJson(item, right.get(key)));
}

/** Whether JSON carries `value` exactly (a NaN would arrive as null, an undefined item as null …). */
function jsonFaithful(value: unknown): boolean {
  if (value === undefined) return true;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return false;
  }
  return text !== undefined && sameJson(JSON.parse(text), value);
}

/** The request the sandbox gets for `input`, as the spec's wire carries it; undefined when it cannot carry it. */
function wireRequest(entry: Entry, input: Input): { path: string; body: string | undefined } | undefined {
  const [method, template] = entry.key.split(' ') as [string, string];
  let path: string;
  try {
    path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const text = String(input.params[name]);
      return text === '.' || text === '..' ? text.replace(/\./g, '%2E') : encodeURIComponent(text);
    });
  } catch {
    return undefined;
  }
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input.query)) {
    if (value === undefined || value === null) continue;
    // A lone surrogate has no UTF-8 form: percent-encoding would send U+FFFD in its place.
    if (typeof value === 'object' || typeof value === 'function' || (typeof value === 'string' && /\p{Cs}/u.test(value))) return undefined;
    query.append(name, String(value));
  }
  const search = query.toString();
  if (input.body !== undefined && !jsonFaithful(input.body)) return undefined;
  const hasBody = method === 'POST' || method === 'PUT';
  return { path: search ? `${path}?${search}` : path, body: hasBody && input.body !== undefined ? JSON.stringify(input.body) : undefined };
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…(${value.length})` : value);
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (value === undefined) return 'undefined (absent)';
  const text = JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

let sandbox: SandboxHandle;
let client: PartnerClient;
let raw: Client;
let receiver: Server;
let token: string;
let live: Live;
let clientRequests = 0;
/** The path and body of the last request undici sent, as it sent them. */
let lastSent: { path: string; body: unknown } | undefined;
const countRequest = (message: unknown): void => {
  clientRequests += 1;
  const { request } = message as { request: { path: string; body: unknown } };
  lastSent = { path: request.path, body: request.body };
};

/** Whether undici's body of a request is the text `body` (absent and empty alike). */
function sameBody(sent: unknown, body: string | undefined): boolean {
  const text = typeof sent === 'string' ? sent : Buffer.isBuffer(sent) ? sent.toString('utf8') : sent === null || sent === undefined ? '' : undefined;
  return text === (body ?? '');
}

async function rawSend(method: Dispatcher.HttpMethod, path: string, body: string | undefined): Promise<{ status: number; code: string | undefined }> {
  const response = await raw.request({
    method,
    path,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
  });
  const text = await response.body.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: response.statusCode, code };
}

beforeAll(async () => {
  receiver = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  sandbox = await startSandbox({ port: 0, rateLimit: false, transactionDelayMs: 10 });
  client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, maxRetries: 0 });
  raw = new Client(sandbox.url);
  const exchange = await raw.request({
    method: 'POST',
    path: '/api/v1.1/auth/token',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: sandbox.key, secret: sandbox.secret }),
  });
  token = ((await exchange.body.json()) as { data: { access_token: string } }).data.access_token;
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const registration = await client.webhooks.create({
    operator: 'Optus',
    network: 'Optus 5G',
    eventType: 'sms',
    update: true,
    webhookUrls: { messageUrl: receiverUrl },
  });
  const provisioning = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
  live = {
    fixtures: sandbox.fixtures,
    webhookId: registration.id,
    deliveryId: '',
    transactionId: provisioning.transactionId,
    sandboxUrl: sandbox.url,
    receiverUrl,
  };
  subscribe('undici:request:create', countRequest);
});

afterAll(async () => {
  unsubscribe('undici:request:create', countRequest);
  await client?.destroy();
  await raw?.close();
  await sandbox?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the client and the sandbox judge every input alike', () => {
  it('has every endpoint of spec part 4 in its catalogue', () => {
    const keys = specEndpoints().map((row) => `${row.method} ${row.path}`);
    expect(keys.length).toBeGreaterThan(30);
    expect(keys.filter((key) => !CATALOGUE.some((entry) => entry.key === key))).toEqual([]);
    expect(CATALOGUE.filter((entry) => !keys.includes(entry.key)).map((entry) => entry.key)).toEqual([]);
  });

  it('docs/shapes.md lists every difference the test allows', () => {
    const shapes = readFileSync(SHAPES, 'utf8');
    expect(DOCUMENTED.map((d) => d.id).filter((id) => !shapes.includes(`\`${id}\``))).toEqual([]);
  });

  it('refuses client-side exactly what the sandbox refuses as a validation error', { timeout: 120_000 }, async () => {
    console.log(`contract seed ${SEED} (CONTRACT_SEED to change), ${SAMPLES} random values per field (CONTRACT_SAMPLES)`);
    const undocumented: string[] = [];
    const documented = new Map<string, number>();
    const cpuBefore = process.cpuUsage();
    let fields = 0;
    let tried = 0;
    let reused = 0;
    for (const [entryIndex, entry] of CATALOGUE.entries()) {
      const [method] = entry.key.split(' ') as [Dispatcher.HttpMethod];
      const base = entry.base(live);
      // The base input itself must pass both sides, or no field of it is judged on its own.
      const baseWire = wireRequest(entry, base);
      const baseAnswer = baseWire && (await rawSend(method, baseWire.path, baseWire.body));
      expect(
        baseAnswer && !(baseAnswer.status === 400 && ['VALIDATION_ERROR', 'MISSING_FIELDS'].includes(baseAnswer.code ?? '')),
        `${entry.key} base input`,
      ).toBe(true);
      for (const [fieldIndex, field] of entry.fields.entries()) {
        fields += 1;
        const seen = new Set<string>();
        // Every value of the kind goes to every field of the kind: a field's check may be its own
        // (a query's, a route's), so a boundary tried on one field proves nothing of another.
        const values = valuesOf(field.kind, SEED + entryIndex * 100 + fieldIndex, SAMPLES);
        for (const value of [...values.every, ...values.boundaries, ...values.sampled]) {
          const id = `${typeof value}:${show(value)}`;
          if (seen.has(id)) continue;
          seen.add(id);
          tried += 1;
          const input = withValue(base, field, value);
          const before = clientRequests;
          let clientVerdict: Disagreement['client'] = 'sent';
          let refusal = '';
          // The sandbox's answer to the client's own request, when it tells the status and code.
          let clientAnswer: { status: number; code: string | undefined } | undefined;
          try {
            await entry.call(client, input, live);
            clientAnswer = { status: 200, code: undefined };
          } catch (error) {
            if (error instanceof RequestValidationError || error instanceof ConfigurationError) {
              clientVerdict = 'refused';
              refusal = error.message;
            } else if (error instanceof ApiError) {
              clientAnswer = { status: error.status, code: error.code };
            }
          }
          const sentCount = clientRequests - before;
          if (clientVerdict === 'refused' && sentCount > 0) {
            undocumented.push(`${entry.key} ${field.in} ${field.name || '(body)'} = ${show(value)}: refused after ${sentCount} request(s) were sent`);
          }
          const wire = wireRequest(entry, input);
          let sandboxVerdict: Disagreement['sandbox'] = 'unsendable';
          let answer = '-';
          if (wire) {
            // The client sent the very request the spec's wire carries: the sandbox answered it already.
            const sentAsWire = sentCount === 1 && lastSent !== undefined && lastSent.path === wire.path && sameBody(lastSent.body, wire.body);
            const result = sentAsWire && clientAnswer ? clientAnswer : await rawSend(method, wire.path, wire.body);
            if (sentAsWire && clientAnswer) reused += 1;
            answer = `${result.status} ${result.code ?? ''}`.trim();
            if (result.status >= 500 && result.status !== 501 && result.status !== 502) {
              undocumented.push(`${entry.key} ${field.in} ${field.name || '(body)'} = ${show(value)}: the sandbox answered ${answer}`);
            }
            sandboxVerdict = result.status === 400 && ['VALIDATION_ERROR', 'MISSING_FIELDS'].includes(result.code ?? '') ? 'refused' : 'accepted';
          }
          const agree = (clientVerdict === 'refused' && sandboxVerdict !== 'accepted') || (clientVerdict === 'sent' && sandboxVerdict === 'accepted');
          if (agree) continue;
          const disagreement: Disagreement = { entry, field, value, client: clientVerdict, sandbox: sandboxVerdict, answer };
          const known = DOCUMENTED.find((d) => d.applies(disagreement));
          if (known) {
            documented.set(known.id, (documented.get(known.id) ?? 0) + 1);
            continue;
          }
          undocumented.push(
            `${entry.key} ${field.in} ${field.name || '(body)'} = ${show(value)}: client ${clientVerdict}${refusal ? ` (${refusal})` : ''}, sandbox ${sandboxVerdict} (${answer})`,
          );
        }
      }
    }
    const cpu = process.cpuUsage(cpuBefore);
    console.log(
      `contract: ${CATALOGUE.length} endpoints, ${fields} fields, ${tried} values (${reused} judged by the client's own request), ${Math.round((cpu.user + cpu.system) / 1000)} ms of CPU; documented differences ${JSON.stringify(Object.fromEntries(documented))}; undocumented ${undocumented.length}`,
    );
    if (undocumented.length > 0) console.log(`undocumented disagreements (seed ${SEED}):\n${undocumented.join('\n')}`);
    expect(undocumented).toEqual([]);
  });
});
