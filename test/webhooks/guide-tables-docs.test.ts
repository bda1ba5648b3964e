/**
 * The receiving guide's tables, held to the receiving side: "What the adapters answer" (`Situation
 * | Status | Body`) by real deliveries to each adapter over loopback, the refusal reasons of
 * `WebhookSignatureError` (`reason | meaning`) by provoking each, and the event types (`` `type` |
 * when | `data` ``) by constructing an event of each name.
 *
 * Not provoked: a `Content-Length` that is not decimal digits (`1e9`), which Node's HTTP parser
 * refuses before any adapter sees it; the fetch adapter's count of the bytes is in adapters.test.ts.
 */
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/core/defaults.js';
import type { WebhookSignatureFailureReason } from '../../src/core/errors.js';
import {
  constructEvent,
  createDeduplicator,
  createFetchHandler,
  createNodeHandler,
  type DedupeStore,
  signPayload,
  verifySignature,
  type WebhookHandlerOptions,
  webhookMiddleware,
  WebhookSignatureError,
} from '../../src/webhooks/index.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { listen, type Loopback } from '../helpers/server.js';
import { fetchBridge, secret } from './helpers.js';

type Adapter = 'Node' | 'Express' | 'fetch';
const adapters: Record<Adapter, (options: WebhookHandlerOptions) => Promise<Loopback>> = {
  Node: (options) => listen(createNodeHandler(options)),
  Express: (options) => {
    const app = express();
    app.post('/', webhookMiddleware(options));
    return listen(app);
  },
  fetch: (options) => listen(fetchBridge(createFetchHandler(options))),
};

let open: Loopback | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

interface Sent {
  status: number;
  body: unknown;
  allow: string | null;
}

const event = (id = 'vqt_1'): string => JSON.stringify({ id, event: 'voice.test.completed', score: 4 });

async function deliver(url: string, body: string, init: { signature?: string; method?: string } = {}): Promise<Sent> {
  const method = init.method ?? 'POST';
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', 'x-service-signature': init.signature ?? signPayload(body, secret) },
    ...(method === 'POST' ? { body } : {}),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body: parsed, allow: response.headers.get('allow') };
}

async function receiver(adapter: Adapter, options: Partial<WebhookHandlerOptions>): Promise<string> {
  open = await adapters[adapter]({ secret, onEvent: () => undefined, onError: () => undefined, ...options });
  return `${open.url}/`;
}

/** A dedupe store whose `claim` or `markDone` fails, the other calls working. */
function failingStore(failing: 'claim' | 'markDone'): DedupeStore {
  return {
    setIfAbsent: async () => true,
    delete: async () => undefined,
    claim: async () => {
      if (failing === 'claim') throw new Error('store down');
      return 'claimed';
    },
    markDone: async () => {
      if (failing === 'markDone') throw new Error('store down');
    },
  };
}

/** Per situation of the table, by its opening words: each way it comes about, as the deliveries that make it. */
const situations: Array<{ opens: string; ways: Array<(adapter: Adapter) => Promise<Sent>> }> = [
  { opens: 'verified and `onEvent` resolved', ways: [async (adapter) => deliver(await receiver(adapter, {}), event())] },
  {
    opens: 'a repeat delivery caught by `dedupe`',
    ways: [
      async (adapter) => {
        const url = await receiver(adapter, { dedupe: createDeduplicator() });
        expect((await deliver(url, event())).status).toBe(200);
        return deliver(url, event());
      },
    ],
  },
  {
    opens: 'a repeat that arrives while the event is still being handled',
    ways: [
      async (adapter) => {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let started!: () => void;
        const handling = new Promise<void>((resolve) => (started = resolve));
        const url = await receiver(adapter, {
          dedupe: createDeduplicator(),
          onEvent: async () => {
            started();
            await held;
          },
        });
        const first = deliver(url, event());
        await handling;
        const repeat = await deliver(url, event());
        release();
        expect((await first).status).toBe(200);
        return repeat;
      },
    ],
  },
  {
    opens: 'the dedupe store failed',
    ways: (['claim', 'markDone'] as const).map(
      (failing) => async (adapter: Adapter) =>
        deliver(await receiver(adapter, { dedupe: createDeduplicator({ store: failingStore(failing) }) }), event()),
    ),
  },
  {
    opens: 'bad signature, stale timestamp, unparsable body',
    ways: [
      async (adapter) => deliver(await receiver(adapter, {}), event(), { signature: signPayload(event(), 'whsec_wrong') }),
      async (adapter) =>
        deliver(await receiver(adapter, {}), event(), {
          signature: signPayload(event(), secret, { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
        }),
      async (adapter) => deliver(await receiver(adapter, {}), '{not json'),
    ],
  },
  { opens: 'not POST', ways: [async (adapter) => deliver(await receiver(adapter, {}), '', { method: 'GET' })] },
  {
    opens: 'body over `maxBodyBytes`',
    ways: [async (adapter) => deliver(await receiver(adapter, {}), `{"id":"vqt_1","pad":"${'x'.repeat(DEFAULT_MAX_BODY_BYTES)}"}`)],
  },
  {
    opens: '`onEvent` threw or rejected',
    ways: [
      async (adapter) =>
        deliver(
          await receiver(adapter, {
            onEvent: () => {
              throw new Error('threw');
            },
          }),
          event(),
        ),
      async (adapter) => deliver(await receiver(adapter, { onEvent: () => Promise.reject(new Error('rejected')) }), event()),
    ],
  },
  {
    opens: 'the `secret` function threw, rejected or returned no secret',
    ways: [
      async (adapter) =>
        deliver(
          await receiver(adapter, {
            secret: () => {
              throw new Error('vault down');
            },
          }),
          event(),
        ),
      async (adapter) => deliver(await receiver(adapter, { secret: () => Promise.reject(new Error('vault down')) }), event()),
      async (adapter) => deliver(await receiver(adapter, { secret: () => '' }), event()),
    ],
  },
];

describe("the receiving guide's table of what the adapters answer", () => {
  const { rows } = findTable(['Situation', 'Status', 'Body']);

  it('has a row for each situation this test provokes, and no other', () => {
    const matched = rows.map(([situation = '']) => situations.filter(({ opens }) => situation.startsWith(opens)).length);
    expect(matched).toEqual(rows.map(() => 1));
    expect(rows).toHaveLength(situations.length);
  });

  it('states the default maxBodyBytes', () => {
    const over = rows.find(([situation]) => situation?.startsWith('body over `maxBodyBytes`'))?.[0] ?? '';
    expect(Number(/\(default (\d+) MiB\)/.exec(over)?.[1]) * 1024 * 1024).toBe(DEFAULT_MAX_BODY_BYTES);
  });

  const cases = rows.flatMap(([situation = '', status = '', body = '']) => {
    const only = /\(([\w ]+) adapters\)/.exec(situation)?.[1]?.split(' and ');
    return (Object.keys(adapters) as Adapter[])
      .filter((adapter) => !only || only.includes(adapter))
      .map((adapter) => [situation, adapter, status, body] as const);
  });

  it.each(cases)('%s: the %s adapter answers %s %s', async (situation, adapter, status, body) => {
    const ways = situations.find(({ opens }) => situation.startsWith(opens))?.ways ?? [];
    const written = codeSpans(body)[0] ?? '';
    for (const [index, way] of ways.entries()) {
      const sent = await way(adapter);
      await open?.close();
      open = undefined;
      expect([situation, index, sent.status]).toEqual([situation, index, Number(status)]);
      if (written.startsWith('{')) {
        const expected = JSON.parse(written) as Record<string, unknown>;
        // The first way is the one the cell quotes; the others give their own reason, in the same members.
        if (index === 0 || !('reason' in expected)) expect(sent.body).toEqual(expected);
        else expect(Object.keys(sent.body as object).sort()).toEqual(Object.keys(expected).sort());
      } else if (/^[\w-]+: /.test(written)) {
        const [header, value] = written.split(': ');
        expect([header, sent.allow]).toEqual(['Allow', value]);
      }
    }
  });
});

describe("the receiving guide's table of refusal reasons", () => {
  const { rows } = findTable(['reason', 'meaning']);
  const body = event();
  const header = signPayload(body, secret);
  const t = Math.floor(Date.now() / 1000);

  /** Each reason, provoked every way its meaning says; the compiler holds this list to the reasons the SDK has. */
  const provoked: Record<WebhookSignatureFailureReason, Array<() => unknown>> = {
    missing_header: [() => verifySignature(body, undefined, secret), () => verifySignature(body, '', secret)],
    malformed_header: [
      () => verifySignature(body, `${header},${'x'.repeat(9000)}`, secret),
      () => verifySignature(body, 't', secret),
      () => verifySignature(body, 't=abc,v1=00', secret),
      () => verifySignature(body, `t=${t},t=${t + 1},v1=00`, secret),
      () => verifySignature(body, `t=${t},v1=abc`, secret),
    ],
    missing_timestamp: [() => verifySignature(body, 'v1=00', secret)],
    missing_signature: [() => verifySignature(body, `t=${t}`, secret)],
    signature_mismatch: [() => verifySignature(body, header, 'whsec_wrong'), () => verifySignature(`${body} `, header, secret)],
    timestamp_out_of_tolerance: [
      () => verifySignature(body, signPayload(body, secret, { timestamp: t - 3600 }), secret),
      () => verifySignature(body, signPayload(body, secret, { timestamp: t + 3600 }), secret),
      () => verifySignature(body, header, secret, { now: new Date(Number.NaN) }),
      () => verifySignature(body, header, secret, { now: Date.now() as never }),
      () => verifySignature(body, header, secret, { toleranceSeconds: -1 }),
    ],
    invalid_secret: [
      () => verifySignature(body, header, ''),
      () => verifySignature(body, header, []),
      () =>
        verifySignature(body, header, () => {
          throw new Error('vault down');
        }),
      () => verifySignature(body, header, (() => Promise.resolve(secret)) as never),
      () => createNodeHandler({ secret: '', onEvent: () => undefined }),
    ],
    invalid_body: [() => verifySignature(JSON.parse(body) as never, header, secret)],
    invalid_payload: [
      () => constructEvent('{not json', { 'x-service-signature': signPayload('{not json', secret) }, secret),
      () => {
        const noId = JSON.stringify({ event: 'voice.test.completed' });
        return constructEvent(noId, { 'x-service-signature': signPayload(noId, secret) }, secret);
      },
    ],
  };

  it('has a row for every reason of WebhookSignatureError', () => {
    expect(rows.flatMap(([reason = '']) => codeSpans(reason)).sort()).toEqual(Object.keys(provoked).sort());
  });

  it.each(rows.flatMap(([reasons = '']) => codeSpans(reasons)))('%s is what the SDK throws where its row says', (reason) => {
    for (const [index, attempt] of (provoked[reason as WebhookSignatureFailureReason] ?? []).entries()) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect([reason, index, thrown]).toEqual([reason, index, expect.any(WebhookSignatureError)]);
      expect([index, (thrown as WebhookSignatureError).reason]).toEqual([index, reason]);
    }
  });
});

describe("the receiving guide's table of event types", () => {
  const { rows } = findTable(['`type`', 'when', '`data`']);
  const typed = (body: Record<string, unknown>) =>
    constructEvent(JSON.stringify(body), { 'x-service-signature': signPayload(JSON.stringify(body), secret) }, secret);

  it.each(rows.map(([type = '', when = '', data = '']) => [codeSpans(type)[0]?.replace(/^'|'$/g, '') ?? '', when, data]))(
    '%s: %s',
    (type, when, data) => {
      // The names the row gives: `sms` or `sms.*` (a `*` stands for any suffix), and what the sandbox sends.
      const names = codeSpans(when).map((name) => name.replace(/\*$/, 'anything'));
      if (when.startsWith('anything else')) names.push('fax.received');
      for (const name of names) expect([name, typed({ id: 'vqt_1', event: name }).type]).toEqual([name, type]);
      if (when.includes('no name')) expect(typed({ id: 'x' }).type).toBe(type);
      if (data.includes('also `event.id`'))
        expect(typed({ id: 'vqt_9', event: 'voice.test.completed' })).toMatchObject({ id: 'vqt_9', data: { id: 'vqt_9' } });
      if (data.startsWith('the parsed JSON as is')) expect(typed({ event: 'fax', n: 1 }).data).toEqual({ event: 'fax', n: 1 });
    },
  );
});
