/**
 * The configuration guide's table of unknown options ("Options object | Refused with") is the
 * rule: every options object a row names refuses a misspelt member with the error class the row
 * says, and the messages the table quotes are the ones a caller reads.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, PartnerClient, RequestValidationError } from '../../src/index.js';
import { RedisDedupeStore, RedisRateLimiter } from '../../src/redis/index.js';
import { createSandbox, startSandbox } from '../../src/sandbox/index.js';
import {
  constructEvent,
  constructEventAsync,
  createDeduplicator,
  createFetchHandler,
  createNodeHandler,
  createVoiceStreamServer,
  MemoryDedupeStore,
  signPayload,
  toWav,
  verifySignature,
  verifySignatureAsync,
  VoiceCall,
  VoiceStreamReceiver,
  type VoiceSocket,
  wavHeader,
  webhookMiddleware,
  writeWav,
} from '../../src/webhooks/index.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { ok } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 0 });

const CLASSES: Record<string, new (...args: never[]) => Error> = { ConfigurationError, RequestValidationError, TypeError };
const redis = { evalsha: async () => 0, eval: async () => 0, set: async () => 'OK' as const, del: async () => 0 };
const secret = `whsec_${'ab'.repeat(32)}`;
const handler = { secret, onEvent: () => undefined };
const body = '{"event":"webhook.test"}';
const loose = (options: object): never => options as never;

/** A call that misspells an option, and the error it ends with. */
type Attempt = () => unknown;

async function refusal(attempt: Attempt): Promise<unknown> {
  try {
    await attempt();
  } catch (error) {
    return error;
  }
  throw new Error('the misspelt option was accepted');
}

async function handle() {
  t.server.on('POST /api/v1.1/esim', {
    status: 202,
    json: { success: true, data: { transactionId: 'tx_1', statusEndpoint: '/api/v3/transactions/tx_1' } },
  });
  return t.client.esim.provision({ planId: 'p' });
}

/**
 * Per options object a row names (a code span of its first cell), a call misspelling one of its
 * members. A row naming an object this list does not know fails until one is added here.
 */
const attempts: Record<string, Attempt[]> = {
  'new PartnerClient(options)': [() => new PartnerClient(loose({ baseUrl: t.server.url, key: KEY, secret: SECRET, timeoutMS: 1 }))],
  rateLimit: [() => new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, rateLimit: loose({ acount: {} }) })],
  '{ limit, windowMs }': [
    () => new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, rateLimit: { account: loose({ limit: 1, window: 1000 }) } }),
    () =>
      new PartnerClient({
        baseUrl: t.server.url,
        key: KEY,
        secret: SECRET,
        rateLimit: { endpoints: { 'POST /api/v1.1/sms': loose({ limt: 1, windowMs: 1 }) } },
      }),
  ],
  RequestOptions: [() => t.client.sims.list({}, loose({ timeout: 1 }))],
  'client.request()': [() => t.client.request(loose({ method: 'GET', path: '/api/v1.1/sims', querry: {} }))],
  'wait()': [async () => (await handle()).wait(loose({ intervalMs: 5 }))],
  'client.transactions': [() => t.client.transactions.wait('tx_1', loose({ pollInterval: 5 }))],
  'close()': [() => t.client.close(loose({ timeout: 5 }))],
  'list()': [() => t.client.sims.list(loose({ pagesize: 1 })), () => t.client.teamMembers.list(loose({ page_size: 1 }))],
  verifySignature: [() => verifySignature(body, signPayload(body, secret), secret, loose({ tolerance: 5 }))],
  constructEvent: [() => constructEvent(body, { 'x-service-signature': signPayload(body, secret) }, secret, loose({ fallback: 'sms' }))],
  signPayload: [() => signPayload(body, secret, loose({ timestmp: 1 }))],
  createDeduplicator: [() => createDeduplicator(loose({ ttl: 5 }))],
  MemoryDedupeStore: [() => new MemoryDedupeStore(loose({ maxEntry: 5 }))],
  VoiceCall: [() => new VoiceCall({} as VoiceSocket, {} as IncomingMessage, loose({ maxQueued: 1 }))],
  RedisRateLimiter: [() => new RedisRateLimiter(loose({ redis, namspace: 'x' }))],
  RedisDedupeStore: [() => new RedisDedupeStore(loose({ redis, namspace: 'x' }))],
  'startSandbox()': [() => startSandbox(loose({ prot: 0 }))],
  'createSandbox()': [() => createSandbox(loose({ sims: 20 }))],
  limits: [() => createSandbox(loose({ limits: { maxBodyByte: 1 } }))],
  faults: [() => createSandbox(loose({ faults: { errorRat: 0.1 } }))],
  credentials: [() => createSandbox(loose({ credentials: { keys: 'k' } }))],
};

/** Names two rows use for different objects, by the row's first code span. */
const scoped: Record<string, Record<string, Attempt[]>> = {
  RedisRateLimiter: {
    account: [() => new RedisRateLimiter(loose({ redis, account: { limit: 1, window: 1 } }))],
    endpoints: [() => new RedisRateLimiter(loose({ redis, endpoints: { 'POST /api/v1.1/sms': { limit: 1, windowMss: 1 } } }))],
  },
  'startSandbox()': { account: [() => createSandbox(loose({ account: { apiAcess: false } }))] },
};

/** What a row names in prose rather than by a code span: the objects behind the words. */
const described: Record<string, Record<string, Attempt[]>> = {
  'the webhook adapters': {
    createNodeHandler: [() => createNodeHandler(loose({ ...handler, awaitHandlers: false }))],
    webhookMiddleware: [() => webhookMiddleware(loose({ ...handler, awaitHandlers: false }))],
    createFetchHandler: [() => createFetchHandler(loose({ ...handler, awaitHandlers: false }))],
  },
  'their async forms': {
    verifySignatureAsync: [() => verifySignatureAsync(body, signPayload(body, secret), secret, loose({ tolerance: 5 }))],
    constructEventAsync: [() => constructEventAsync(body, { 'x-service-signature': signPayload(body, secret) }, secret, loose({ fallback: 'sms' }))],
  },
  'the voice-stream receiver and server': {
    VoiceStreamReceiver: [() => new VoiceStreamReceiver(loose({ maxQueued: 1 }))],
    createVoiceStreamServer: [() => createVoiceStreamServer(loose({ prt: 0 }))],
  },
  'the WAV helpers': {
    toWav: [() => toWav([], loose({ rate: 8000 }))],
    writeWav: [() => writeWav('unused.wav', [], loose({ rate: 8000 }))],
    wavHeader: [() => wavHeader(0, loose({ rate: 8000 }))],
  },
};

const { rows } = findTable(['Options object', 'Refused with']);

/** The row's objects, each with its attempts: code spans of the first cell, then the prose it uses. */
function objectsOf(cell: string): Array<[string, Attempt[]]> {
  const spans = codeSpans(cell).filter((span) => !isMessage(span));
  const named = spans.map((span): [string, Attempt[]] => {
    const found = scoped[spans[0] ?? '']?.[span] ?? attempts[span];
    if (!found) throw new Error(`the table names ${span}, which this test has no misspelt call for`);
    return [span, found];
  });
  const prose = Object.entries(described).filter(([words]) => cell.includes(words));
  return [...named, ...prose.flatMap(([, objects]) => Object.entries(objects))];
}

/** A message the table quotes: `unknown request option …`, or `… did you mean …?`. */
function isMessage(span: string): boolean {
  return /^unknown |: did you mean /.test(span);
}

/** The message a quoted one stands for (`…` for the rest of it), wherever the error's message holds it. */
function messagePattern(span: string): RegExp {
  return new RegExp(span.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/…/g, '.*'));
}

describe("the configuration guide's table of unknown options", () => {
  it.each(rows.map(([objects = '', refusedWith = '']) => ({ objects, refusedWith, name: objects.slice(0, 60) })))(
    'refuses a misspelt member of $name with the class the row names',
    async ({ objects, refusedWith }) => {
      const className = codeSpans(refusedWith)[0] ?? '';
      const errorClass = CLASSES[className];
      if (!errorClass) throw new Error(`the table names ${className}, which is not an error class of this test`);
      const found = objectsOf(objects);
      expect(found.length).toBeGreaterThan(0);
      const messages: string[] = [];
      for (const [name, tries] of found) {
        for (const attempt of tries) {
          const error = await refusal(attempt);
          expect([name, error]).toEqual([name, expect.any(errorClass)]);
          messages.push((error as Error).message);
        }
      }
      // Every message the row quotes is one of these errors' messages.
      for (const quoted of [...codeSpans(objects), ...codeSpans(refusedWith)].filter(isMessage)) {
        expect([quoted, messages.some((message) => messagePattern(quoted).test(message))]).toEqual([quoted, true]);
      }
    },
  );

  it('names, for the client, the unknown option in `option`, and `rateLimit` for a nested one', async () => {
    const row = rows.find(([objects]) => objects?.includes('new PartnerClient(options)'));
    expect(row?.[1]).toContain("`option` the unknown name (`'rateLimit'` for a nested one)");
    expect(await refusal(attempts['new PartnerClient(options)']?.[0] as Attempt)).toMatchObject({ option: 'timeoutMS' });
    for (const attempt of [...(attempts['rateLimit'] ?? []), ...(attempts['{ limit, windowMs }'] ?? [])]) {
      expect(await refusal(attempt)).toMatchObject({ option: 'rateLimit' });
    }
  });

  it('names each webhook, dedupe and WAV function or class in its message', async () => {
    const row = rows.find(([objects]) => objects?.includes('the webhook adapters'));
    expect(row?.[1]).toContain('naming the function or class');
    for (const [name, tries] of objectsOf(row?.[0] ?? '')) {
      for (const attempt of tries)
        expect([name, ((await refusal(attempt)) as Error).message]).toEqual([name, expect.stringMatching(`^unknown ${name} option `)]);
    }
  });

  it('passes the filters of users.list() through and refuses only another spelling of page or pageSize', async () => {
    const row = rows.find(([, refusedWith]) => refusedWith?.includes('`users.list()`'));
    expect(row?.[1]).toContain('refuses only another spelling of `page` or `pageSize`');
    t.server.on('GET /api/v1.1/users', ok([], { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } }));
    await t.client.users.list(loose({ department: 'Sales', pageSize: 20 }));
    expect(t.server.requestsTo('GET /api/v1.1/users')[0]?.path).toContain('department=Sales');
    for (const spelling of ['page_size', 'pagesize', 'Page']) {
      expect([spelling, await refusal(() => t.client.users.list(loose({ [spelling]: 1 })))]).toEqual([spelling, expect.any(RequestValidationError)]);
    }
  });
});
