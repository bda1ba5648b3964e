import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.js';
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
  wavHeader,
  webhookMiddleware,
  writeWav,
  type ConstructEventOptions,
  type DedupeOptions,
  type MemoryDedupeStoreOptions,
  type SignOptions,
  type VerifyOptions,
  type VoiceCallOptions,
  type VoiceSocket,
  type VoiceStreamOptions,
  type VoiceStreamServerOptions,
  type WavOptions,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { RedisDedupeStore, type RedisConnection, type RedisDedupeStoreOptions } from '../../src/redis/index.js';
import { secret } from './helpers.js';

/**
 * Every name each options type declares, as the compiler checks it: a table missing a member, or
 * naming one the type lacks, does not compile. The tests below hold the package's run-time lists
 * to these, so neither can drift from the types.
 */
const verifyNames = { toleranceSeconds: true, now: true, maxHeaderLength: true } satisfies Record<keyof VerifyOptions, true>;
const voiceCallNames = { maxQueuedFrames: true } satisfies Record<keyof VoiceCallOptions, true>;
const receiverNames = { ...voiceCallNames, path: true, authorize: true, onCall: true, maxPayloadBytes: true } satisfies Record<
  keyof VoiceStreamOptions,
  true
>;
const names = {
  handler: {
    secret: true,
    onEvent: true,
    dedupe: true,
    awaitHandler: true,
    onError: true,
    now: true,
    maxBodyBytes: true,
    toleranceSeconds: true,
    maxHeaderLength: true,
    fallbackType: true,
  } satisfies Record<keyof WebhookHandlerOptions, true>,
  verify: verifyNames,
  constructEvent: { ...verifyNames, fallbackType: true } satisfies Record<keyof ConstructEventOptions, true>,
  sign: { timestamp: true } satisfies Record<keyof SignOptions, true>,
  dedupe: { store: true, ttlMs: true, leaseMs: true, key: true } satisfies Record<keyof DedupeOptions, true>,
  memoryStore: { maxEntries: true } satisfies Record<keyof MemoryDedupeStoreOptions, true>,
  redisStore: { redis: true, namespace: true, ttlMs: true, commandTimeoutMs: true } satisfies Record<keyof RedisDedupeStoreOptions, true>,
  voiceCall: voiceCallNames,
  receiver: receiverNames,
  voiceServer: { ...receiverNames, port: true, host: true } satisfies Record<keyof VoiceStreamServerOptions, true>,
  wav: { sampleRate: true, channels: true } satisfies Record<keyof WavOptions, true>,
};

const body = JSON.stringify({ id: 'vq_1', type: 'voice.test.completed' });
const header = (): string => signPayload(body, secret);
const onEvent = (_event: WebhookEvent): void => undefined;

/** The four commands the fleet classes check for; never called here. */
const redis: RedisConnection = {
  evalsha: () => Promise.resolve(null),
  eval: () => Promise.resolve(null),
  set: () => Promise.resolve(null),
  del: () => Promise.resolve(0),
};

/** Enough of a `ws` socket for a VoiceCall to be built on it. */
function socket(): VoiceSocket {
  return Object.assign(new EventEmitter(), {
    binaryType: 'nodebuffer',
    pause() {},
    resume() {},
    terminate() {},
    close() {},
  }) as unknown as VoiceSocket;
}

/** What `run` threw or rejected with; undefined when it returned or resolved. */
async function refusal(run: () => unknown): Promise<unknown> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** One options object the receiving side takes. */
interface Surface {
  /** What is called, as the error names it. */
  owner: string;
  names: Readonly<Record<string, true>>;
  /** Calls it with these options (and whatever else it needs); what it threw or rejected with. */
  call(options: Record<string, unknown>): Promise<unknown>;
  misspellings: Array<[given: string, meant: string]>;
}

const surfaces: Surface[] = [
  ...(
    [
      ['createNodeHandler', createNodeHandler],
      ['webhookMiddleware', webhookMiddleware],
      ['createFetchHandler', createFetchHandler],
    ] as const
  ).map(([owner, adapter]): Surface => ({
    owner,
    names: names.handler,
    call: (options) => refusal(() => adapter({ ...options, secret, onEvent })),
    misspellings: [
      ['awaitHandlers', 'awaitHandler'],
      ['tolerance', 'toleranceSeconds'],
      ['maxBody', 'maxBodyBytes'],
      ['signingSecret', 'secret'],
      ['on_error', 'onError'],
    ],
  })),
  {
    owner: 'verifySignature',
    names: names.verify,
    call: (options) => refusal(() => verifySignature(body, header(), secret, options)),
    misspellings: [
      ['tolerance', 'toleranceSeconds'],
      ['toleranceMs', 'toleranceSeconds'],
      ['maxHeaderLen', 'maxHeaderLength'],
    ],
  },
  {
    owner: 'verifySignatureAsync',
    names: names.verify,
    call: (options) => refusal(() => verifySignatureAsync(body, header(), secret, options)),
    misspellings: [['Now', 'now']],
  },
  {
    owner: 'constructEvent',
    names: names.constructEvent,
    call: (options) => refusal(() => constructEvent(body, { 'x-service-signature': header() }, secret, options)),
    misspellings: [
      ['fallback_type', 'fallbackType'],
      ['tolerance', 'toleranceSeconds'],
    ],
  },
  {
    owner: 'constructEventAsync',
    names: names.constructEvent,
    call: (options) => refusal(() => constructEventAsync(body, new Headers({ 'x-service-signature': header() }), secret, options)),
    misspellings: [['fallback', 'fallbackType']],
  },
  {
    owner: 'signPayload',
    names: names.sign,
    call: (options) => refusal(() => signPayload(body, secret, options)),
    misspellings: [['timeStamp', 'timestamp']],
  },
  {
    owner: 'createDeduplicator',
    names: names.dedupe,
    call: (options) => refusal(() => createDeduplicator(options)),
    misspellings: [
      ['ttl', 'ttlMs'],
      ['lease', 'leaseMs'],
      ['keyOf', 'key'],
    ],
  },
  {
    owner: 'MemoryDedupeStore',
    names: names.memoryStore,
    call: (options) => refusal(() => new MemoryDedupeStore(options)),
    misspellings: [
      ['maxEntry', 'maxEntries'],
      ['max_entries', 'maxEntries'],
    ],
  },
  {
    owner: 'RedisDedupeStore',
    names: names.redisStore,
    call: (options) => refusal(() => new RedisDedupeStore({ ...options, redis })),
    misspellings: [
      ['ttl', 'ttlMs'],
      ['namspace', 'namespace'],
    ],
  },
  {
    owner: 'VoiceCall',
    names: names.voiceCall,
    call: (options) => refusal(() => new VoiceCall(socket(), {} as IncomingMessage, options)),
    misspellings: [['maxQueued', 'maxQueuedFrames']],
  },
  {
    owner: 'VoiceStreamReceiver',
    names: names.receiver,
    call: (options) => refusal(() => new VoiceStreamReceiver(options).close()),
    misspellings: [
      ['maxPayload', 'maxPayloadBytes'],
      ['oncall', 'onCall'],
    ],
  },
  {
    owner: 'createVoiceStreamServer',
    names: names.voiceServer,
    call: (options) => refusal(async () => (await createVoiceStreamServer(options)).close()),
    misspellings: [
      ['prot', 'port'],
      ['hostname', 'host'],
    ],
  },
  {
    owner: 'wavHeader',
    names: names.wav,
    call: (options) => refusal(() => wavHeader(0, options)),
    misspellings: [['sample_rate', 'sampleRate']],
  },
  {
    owner: 'toWav',
    names: names.wav,
    call: (options) => refusal(() => toWav([], options)),
    misspellings: [['channel', 'channels']],
  },
  {
    owner: 'writeWav',
    names: names.wav,
    call: (options) => refusal(() => writeWav(new PassThrough(), [], options)),
    misspellings: [['rate', 'sampleRate']],
  },
];

const misspelt = surfaces.flatMap((surface) => surface.misspellings.map(([given, meant]) => [surface.owner, given, meant, surface] as const));

describe('an unknown option, wherever the receiving side takes options', () => {
  it.each(misspelt)('%s refuses %s with a ConfigurationError naming %s', async (owner, given, meant, surface) => {
    const error = await surface.call({ [given]: 1 });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).message).toBe(`unknown ${owner} option ${given}: did you mean ${meant}?`);
    expect((error as ConfigurationError).option).toBe(given);
  });

  it.each(surfaces.map((surface) => [surface.owner, surface] as const))(
    '%s refuses a name near none without a suggestion, listing exactly the names of its type',
    async (owner, surface) => {
      const error = await surface.call({ xyzzy: 1 });
      expect(error).toBeInstanceOf(ConfigurationError);
      const message = (error as Error).message;
      expect(message.startsWith(`unknown ${owner} option xyzzy (allowed: `)).toBe(true);
      const listed = /\(allowed: ([^)]*)\)$/.exec(message)?.[1]?.split(', ');
      expect(new Set(listed)).toEqual(new Set(Object.keys(surface.names)));
      expect(listed).toHaveLength(Object.keys(surface.names).length);
    },
  );

  it.each(surfaces.map((surface) => [surface.owner, surface] as const))(
    '%s takes every name of its type with the value undefined',
    async (_owner, surface) => {
      const everyName = Object.fromEntries(Object.keys(surface.names).map((name) => [name, undefined]));
      expect(await surface.call(everyName)).toBeUndefined();
    },
  );

  it('an adapter still verifies with its tolerance and reads with its fallback type', async () => {
    const signedAt = Math.floor(Date.now() / 1000) - 600;
    const sms = JSON.stringify({ from: '+14155550100', to: '+14155550101', text: 'hi' });
    const delivery = (): Request =>
      new Request('http://receiver.test/webhooks', {
        method: 'POST',
        body: sms,
        headers: { 'x-service-signature': signPayload(sms, secret, { timestamp: signedAt }) },
      });
    const events: WebhookEvent[] = [];
    const strict = createFetchHandler({ secret, onEvent: (event) => void events.push(event) });
    expect((await strict(delivery())).status).toBe(400);
    const lenient = createFetchHandler({ secret, toleranceSeconds: 3600, fallbackType: 'sms', onEvent: (event) => void events.push(event) });
    expect((await lenient(delivery())).status).toBe(200);
    expect(events.map((event) => event.type)).toEqual(['sms']);
  });
});
