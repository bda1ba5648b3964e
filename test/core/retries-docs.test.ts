/**
 * The retries guide's table ("Failure | GET, routes the spec marks (idem) … | Other writes …") is
 * the rule: for every failure a row names, each kind of call of a column is retried, or not, as
 * its cell says, against a loopback server. Attempts are counted as the diagnostics channels
 * report them (`attempts`: every request the call sent, the 401 replay included).
 *
 * Not provoked: a DNS failure, which needs a resolver this machine may not answer from; it takes
 * the path of a refused connection (both are `requestNotSent`).
 */
import diagnostics from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClientOptions,
  PartnerClient,
  REQUEST_END_CHANNEL,
  REQUEST_ERROR_CHANNEL,
  type RequestEndMessage,
  type RequestErrorMessage,
} from '../../src/index.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { fail, listen, ok, refusedAfterToken, type Reply, type Responder, tokenAnswer } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer();

const table = findTable([
  'Failure',
  'GET, routes the spec marks (idem), writes with your own `idempotencyKey`',
  'Other writes, the asynchronous writes included',
]);

/** A kind of call of a column: its route, a success answer of it, and the call. */
interface Kind {
  name: string;
  route: string;
  success: Reply;
  keyed: boolean;
  call(client: PartnerClient): PromiseLike<unknown>;
}

const accepted = ok({ transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' }, { status: 202 });
const kinds: Record<'safe' | 'unsafe', Kind[]> = {
  safe: [
    {
      name: 'a GET',
      route: 'GET /api/v1.1/sims',
      success: ok([], { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } }),
      keyed: false,
      call: (c) => c.sims.list(),
    },
    {
      name: 'a write the spec marks (idem)',
      route: 'POST /api/v1.1/sms',
      success: ok({ message: 'sent' }, { status: 201 }),
      keyed: true,
      call: (c) => c.sms.send({ fromNumber: '+15550100001', toNumber: '+15550100002', text: 'hi' }),
    },
    {
      name: 'a write with your own idempotencyKey',
      route: 'POST /api/v1.1/plans/purchase',
      success: ok({ orderId: 'o_1' }),
      keyed: true,
      call: (c) => c.plans.purchase({ planId: 'p', iccid: '1' }, { idempotencyKey: 'order-42' }),
    },
  ],
  unsafe: [
    {
      name: 'another write',
      route: 'POST /api/v1.1/plans/purchase',
      success: ok({ orderId: 'o_1' }),
      keyed: false,
      call: (c) => c.plans.purchase({ planId: 'p', iccid: '1' }),
    },
    { name: 'an asynchronous write', route: 'POST /api/v1.1/esim', success: accepted, keyed: false, call: (c) => c.esim.provision({ planId: 'p' }) },
  ],
};

/** A failure as the first cell names it: what the server (or the connection) does on the first attempt. */
interface Failure {
  name: string;
  /** The first answer of the route; the next ones are the kind's success unless `then` says otherwise. */
  first?: Responder;
  then?: (kind: Kind) => Responder[];
  /** A client whose wire never reaches the test server. */
  baseUrl?: () => Promise<string>;
  options?: ClientOptions;
  /** The row says the request provably never left. */
  requestNotSent?: boolean;
}

const html502: Reply = { status: 502, raw: '<html>Bad gateway</html>' };

/** The failures of the first cell, by the words it uses; an item no entry knows fails the test. */
/** The code the spec gives each status (part 7), so that an answer means what its row means. */
const SPEC_CODES: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  422: 'INVALID_ROLE',
  429: 'RATE_LIMITED',
  501: 'NOT_IMPLEMENTED',
};

/** Failures the first cell names in words, by those words. */
const described: Record<string, Failure[]> = {
  'Connection refused': [{ name: 'Connection refused', baseUrl: refusingUrl, requestNotSent: true }],
  'DNS failure': [],
  'Other connection errors': [{ name: 'a connection reset after the request left', baseUrl: resettingUrl }],
  timeouts: [{ name: 'an attempt past timeoutMs', first: { hang: true }, options: { timeoutMs: 200 } }],
  "a gateway's 502": [{ name: "a gateway's 502", first: html502 }],
  'other 5xx': [504, 507].map((code) => ({ name: `${code}`, first: fail(code, 'INTERNAL_ERROR') })),
  '409 `CONFLICT` to a retry of a keyed write, not replayed': [
    { name: 'a retry answered 409 CONFLICT', first: fail(503, 'INTERNAL_ERROR'), then: (kind) => [fail(409, 'CONFLICT'), kind.success] },
  ],
  '3xx (`RedirectError`)': [{ name: '302', first: { status: 302, headers: { location: 'https://elsewhere.example/' }, raw: '' } }],
  'an answer too large (`ResponseTooLargeError`)': [
    {
      name: 'an answer too large',
      first: { status: 200, raw: `{"success":true,"data":"${'x'.repeat(2000)}"}` },
      options: { maxResponseBytes: 1000 },
    },
  ],
};

/** The failures of a first cell: its statuses (`409`, `502 \`DELIVERY_FAILED\``) and what it names in words. */
function failuresOf(cell: string): Failure[] {
  const whole = described[cell];
  if (whole) return whole;
  const items = cell
    .replace(/ \(`requestNotSent`\)$/, '')
    .split(/, (?![^(]*\))/)
    .map((item) => item.trim());
  return items.flatMap((item): Failure[] => {
    const status = /^(\d{3})(?: `(\w+)`)?$/.exec(item);
    if (status) {
      const code = Number(status[1]);
      return [{ name: item, first: fail(code, status[2] ?? SPEC_CODES[code] ?? 'INTERNAL_ERROR') }];
    }
    const found = described[item];
    if (!found) throw new Error(`the table names the failure "${item}", which this test cannot provoke`);
    return found;
  });
}

/** A loopback server that answers the token exchange, then resets every other request once it is in. */
async function resettingUrl(): Promise<string> {
  const loopback = await listen((request, response) => {
    request.resume();
    if (request.url === '/api/v1.1/auth/token') request.on('end', () => answerToken(response));
    else request.on('end', () => request.socket.resetAndDestroy());
  });
  closers.push(() => loopback.close());
  return loopback.url;
}

/** A loopback server that answers the token exchange, then refuses every connection. */
async function refusingUrl(): Promise<string> {
  const loopback = await refusedAfterToken();
  closers.push(() => loopback.close());
  return loopback.url;
}

function answerToken(response: ServerResponse): void {
  const body = JSON.stringify(tokenAnswer().json);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The last call's outcome as the diagnostics channels report it. */
const reported: Array<RequestEndMessage | RequestErrorMessage> = [];
const record = (message: unknown): void => {
  if ((message as RequestEndMessage).request.kind !== 'token') reported.push(message as RequestEndMessage);
};
beforeEach(() => {
  reported.length = 0;
  diagnostics.subscribe(REQUEST_END_CHANNEL, record);
  diagnostics.subscribe(REQUEST_ERROR_CHANNEL, record);
  return () => {
    diagnostics.unsubscribe(REQUEST_END_CHANNEL, record);
    diagnostics.unsubscribe(REQUEST_ERROR_CHANNEL, record);
  };
});

interface Outcome {
  attempts: number;
  error: unknown;
  exchanges: number;
  keys: Array<string | undefined>;
  elapsedMs: number;
}

async function attempt(kind: Kind, failure: Failure, maxRetries: number): Promise<Outcome> {
  const baseUrl = failure.baseUrl ? await failure.baseUrl() : t.server.url;
  t.server.on(kind.route, [failure.first ?? kind.success, ...(failure.then ? failure.then(kind) : [kind.success])]);
  const client = t.track(new PartnerClient({ baseUrl, key: KEY, secret: SECRET, maxRetries, ...failure.options }));
  const exchanges = t.server.exchanges;
  const sent = t.server.requestsTo(kind.route).length;
  reported.length = 0;
  const started = performance.now();
  const error = await Promise.resolve(kind.call(client)).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  const elapsedMs = performance.now() - started;
  const [message] = reported;
  return {
    attempts: message?.attempts ?? 0,
    error,
    exchanges: t.server.exchanges - exchanges,
    keys: t.server
      .requestsTo(kind.route)
      .slice(sent)
      .map((request) => request.headers['idempotency-key']),
    elapsedMs,
  };
}

/** What a cell says happens, checked on one outcome. */
async function expectCell(cell: string, kind: Kind, failure: Failure): Promise<void> {
  const label = `${failure.name}, ${kind.name}`;
  if (cell === '—') return;
  if (cell.startsWith('one re-authentication and replay') || cell === 'same') {
    // Not counted as a retry: it happens with maxRetries 0, and the call succeeds.
    const outcome = await attempt(kind, failure, 0);
    expect([label, outcome.error, outcome.attempts, outcome.exchanges]).toEqual([label, undefined, 2, 2]);
    return;
  }
  if (cell.startsWith('the original is still in progress: asked again with the same key')) {
    const outcome = await attempt(kind, failure, 1);
    expect([label, outcome.error, outcome.attempts]).toEqual([label, undefined, 3]);
    expect(new Set(outcome.keys).size).toBe(1);
    expect(outcome.keys[0]).toBeTruthy();
    return;
  }
  const outcome = await attempt(kind, failure, 1);
  if (failure.requestNotSent) expect([label, outcome.error]).toEqual([label, expect.objectContaining({ requestNotSent: true })]);
  if (cell.startsWith('retried')) {
    expect([label, outcome.attempts]).toEqual([label, 2]);
    if (cell.startsWith('retried after `Retry-After`')) expect(outcome.elapsedMs).toBeGreaterThanOrEqual(950);
    return;
  }
  if (cell.startsWith('not retried')) {
    expect([label, outcome.attempts]).toEqual([label, 1]);
    const flagged = (outcome.error as { mayHaveSucceeded?: boolean } | undefined)?.mayHaveSucceeded === true;
    expect([label, flagged]).toEqual([label, cell.includes('`mayHaveSucceeded: true`')]);
    return;
  }
  throw new Error(`the cell "${cell}" says something this test cannot check`);
}

describe("the retries guide's table of what is retried", () => {
  it('has a column for calls with an idempotency promise and one for other writes', () => {
    expect(table.rows.length).toBeGreaterThan(5);
    expect(codeSpans(table.header[1] ?? '')).toEqual(['idempotencyKey']);
  });

  // A 429 row's Retry-After is its own: a second, so that "after Retry-After" is seen in the timing.
  const withRetryAfter = (failure: Failure): Failure =>
    failure.name === '429' ? { ...failure, first: fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' } }) } : failure;

  it.each(table.rows.map(([failure = '', safe = '', unsafe = '']) => [failure, safe, unsafe]))(
    '%s: each kind of call is retried as its row says',
    { timeout: 60_000 },
    async (failure, safe, unsafe) => {
      const failures = failuresOf(failure).map(withRetryAfter);
      expect(failures.length).toBeGreaterThan(0);
      for (const one of failures) {
        for (const kind of kinds.safe) {
          // A 409 to a retry concerns keyed writes only; a GET sends no key.
          if (one.then && !kind.keyed) continue;
          await expectCell(safe, kind, one);
        }
        for (const kind of kinds.unsafe) await expectCell(unsafe, kind, one);
      }
    },
  );
});
