import { describe, expect, it } from 'vitest';
import { ConfigurationError, PartnerClient, RequestValidationError } from '../../src/index.js';
import type {
  ClientOptions,
  CloseOptions,
  PortInListParams,
  RateLimitOptions,
  RawRequest,
  RequestOptions,
  SimListParams,
  SubscriptionListParams,
  TeamMemberListParams,
  VoiceQualityWebhookListParams,
  WaitOptions,
  WebhookDeliveryListParams,
  WebhookListParams,
  WindowLimit,
} from '../../src/index.js';
import { RedisRateLimiter, type RedisConnection, type RedisRateLimiterOptions } from '../../src/redis/index.js';
import { ok, TOKEN_ROUTE } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer();

/**
 * Every name each options type declares, as the compiler checks it: a table missing a member, or
 * naming one the type lacks, does not compile. The tests below hold the package's run-time lists
 * to these, so neither can drift from the types.
 */
const requestNames = { idempotencyKey: true, signal: true, timeoutMs: true, maxRetries: true, headers: true, middleware: true } satisfies Record<
  keyof RequestOptions,
  true
>;
const names = {
  client: {
    baseUrl: true,
    key: true,
    secret: true,
    timeoutMs: true,
    maxRetries: true,
    rateLimit: true,
    fetch: true,
    dispatcher: true,
    logger: true,
    logLevel: true,
    allowInsecureHttp: true,
    validateResponses: true,
    defaultHeaders: true,
    maxResponseBytes: true,
    maxServerWaitMs: true,
    propagateTraceContext: true,
    middleware: true,
  } satisfies Record<keyof ClientOptions, true>,
  rateLimit: { account: true, endpoints: true } satisfies Record<keyof RateLimitOptions, true>,
  windowLimit: { limit: true, windowMs: true } satisfies Record<keyof WindowLimit, true>,
  request: requestNames,
  rawRequest: {
    ...requestNames,
    method: true,
    path: true,
    query: true,
    body: true,
    schema: true,
    auth: true,
    envelope: true,
    idempotent: true,
  } satisfies Record<keyof RawRequest<unknown>, true>,
  wait: { timeoutMs: true, pollIntervalMs: true, maxPollIntervalMs: true, signal: true, onProgress: true } satisfies Record<keyof WaitOptions, true>,
  close: { timeoutMs: true } satisfies Record<keyof CloseOptions, true>,
  simList: { page: true, pageSize: true, status: true, assignedStatus: true, assignedTo: true, search: true } satisfies Record<
    keyof SimListParams,
    true
  >,
  subscriptionList: { page: true, pageSize: true, status: true } satisfies Record<keyof SubscriptionListParams, true>,
  portInList: { page: true, pageSize: true, status: true } satisfies Record<keyof PortInListParams, true>,
  teamMemberList: { page: true, pageSize: true } satisfies Record<keyof TeamMemberListParams, true>,
  voiceQualityWebhookList: { page: true, pageSize: true } satisfies Record<keyof VoiceQualityWebhookListParams, true>,
  webhookList: { page: true, pageSize: true } satisfies Record<keyof WebhookListParams, true>,
  webhookDeliveryList: { page: true, pageSize: true, webhookId: true, status: true } satisfies Record<keyof WebhookDeliveryListParams, true>,
  redisRateLimiter: {
    redis: true,
    account: true,
    endpoints: true,
    namespace: true,
    onStoreError: true,
    commandTimeoutMs: true,
  } satisfies Record<keyof RedisRateLimiterOptions, true>,
};

/** The four commands the fleet classes check for; never called here. */
const redis: RedisConnection = {
  evalsha: () => Promise.resolve(null),
  eval: () => Promise.resolve(null),
  set: () => Promise.resolve(null),
  del: () => Promise.resolve(0),
};

const TX_PATH = '/api/v3/transactions/tx_1';

/** Answers the eSIM provisioning with tx_1, completed at the first poll. */
function acceptProvisioning(): void {
  t.server.on('POST /api/v1.1/esim', { status: 202, json: { success: true, data: { transactionId: 'tx_1', statusEndpoint: TX_PATH } } });
  t.server.on(
    `GET ${TX_PATH}`,
    ok({ transactionId: 'tx_1', status: 'COMPLETED', timestamp: new Date().toISOString(), result: { iccid: '8901', mdn: '+14155550100' } }),
  );
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

/** One options object the client side takes, and how it is given. */
interface Surface {
  /** The call, as a partner writes it. */
  name: string;
  /** Every name its type declares. */
  names: Readonly<Record<string, true>>;
  /** Calls it with these options; what it threw or rejected with, or undefined. */
  call(options: Record<string, unknown>): Promise<unknown>;
  /** The message of its refusal, before `unknown …`. */
  context: string;
  /** What its members are called in the message. */
  kind: string;
  /** Where a nested object sits (`rateLimit.`), naming both names in the message. */
  path?: string;
  /** A misspelt name and the one meant. */
  misspellings: Array<[given: string, meant: string]>;
}

function client(options: Record<string, unknown> = {}): PartnerClient {
  return t.track(new PartnerClient({ baseUrl: t.server.url, key: KEY, secret: SECRET, ...options }));
}

const surfaces: Surface[] = [
  {
    name: 'new PartnerClient(options)',
    names: names.client,
    call: (options) => refusal(() => client(options)),
    context: '',
    kind: 'client option',
    misspellings: [
      ['baseURL', 'baseUrl'],
      ['base_url', 'baseUrl'],
      ['apiKey', 'key'],
      ['apiSecret', 'secret'],
      ['timeout', 'timeoutMs'],
      ['maxRetry', 'maxRetries'],
      ['retries', 'maxRetries'],
      ['headers', 'defaultHeaders'],
      ['loglevel', 'logLevel'],
      ['maxResponseSize', 'maxResponseBytes'],
    ],
  },
  {
    name: 'sims.retrieveSubscription(iccid, options)',
    names: names.request,
    call: (options) => refusal(() => t.client.sims.retrieveSubscription('8901', options)),
    context: 'GET /api/v1.1/sims/{iccid}/subscription: invalid request: ',
    kind: 'request option',
    misspellings: [
      ['timeout', 'timeoutMs'],
      ['header', 'headers'],
    ],
  },
  {
    name: 'plans.purchase(body, options), a write that moves money',
    names: names.request,
    call: (options) => refusal(() => t.client.plans.purchase({ iccid: '8901', planId: 'p1' }, options)),
    context: 'POST /api/v1.1/plans/purchase: invalid request: ',
    kind: 'request option',
    misspellings: [
      ['idempotency_key', 'idempotencyKey'],
      ['IdempotencyKey', 'idempotencyKey'],
      ['maxRetry', 'maxRetries'],
    ],
  },
  {
    name: 'sims.list(params, options)',
    names: names.request,
    call: (options) => refusal(() => t.client.sims.list({}, options)),
    context: 'GET /api/v1.1/sims: invalid request: ',
    kind: 'request option',
    misspellings: [['signa', 'signal']],
  },
  {
    name: 'webhooks.list(params, options)',
    names: names.request,
    call: (options) => refusal(() => t.client.webhooks.list({}, options)),
    context: 'GET /api/v1.1/webhooks: invalid request: ',
    kind: 'request option',
    misspellings: [['max_retries', 'maxRetries']],
  },
  {
    name: 'client.request(input)',
    names: names.rawRequest,
    call: (options) => refusal(() => t.client.request({ ...options, method: 'GET', path: '/api/v1.1/ping' })),
    context: 'request: invalid request: ',
    kind: 'request option',
    misspellings: [
      ['idempotency_key', 'idempotencyKey'],
      ['envelop', 'envelope'],
      ['querry', 'query'],
    ],
  },
  {
    name: 'handle.wait(options)',
    names: names.wait,
    call: async (options) => {
      acceptProvisioning();
      const handle = await t.client.esim.provision({ planId: 'p1' });
      return refusal(() => handle.wait(options));
    },
    context: 'wait for transaction tx_1: invalid request: ',
    kind: 'wait option',
    misspellings: [
      ['pollInterval', 'pollIntervalMs'],
      ['timeout', 'timeoutMs'],
      ['onprogress', 'onProgress'],
    ],
  },
  {
    name: 'client.transactions.wait(id, options)',
    names: names.wait,
    call: (options) => {
      acceptProvisioning();
      return refusal(() => t.client.transactions.wait('tx_1', options));
    },
    context: 'wait for transaction tx_1: invalid request: ',
    kind: 'wait option',
    misspellings: [['maxPollInterval', 'maxPollIntervalMs']],
  },
  {
    name: 'client.close(options)',
    names: names.close,
    call: (options) => refusal(() => client().close(options)),
    context: 'close: invalid request: ',
    kind: 'close option',
    misspellings: [['timeout', 'timeoutMs']],
  },
  ...(
    [
      ['sims.list(params)', names.simList, 'GET /api/v1.1/sims', (params: object) => t.client.sims.list(params)],
      ['subscriptions.list(params)', names.subscriptionList, 'GET /api/v1.1/subscriptions', (params: object) => t.client.subscriptions.list(params)],
      ['portIns.list(params)', names.portInList, 'GET /api/v1.1/port-ins', (params: object) => t.client.portIns.list(params)],
      ['teamMembers.list(params)', names.teamMemberList, 'GET /api/v1.1/team-members', (params: object) => t.client.teamMembers.list(params)],
      [
        'voiceQuality.webhooks.list(params)',
        names.voiceQualityWebhookList,
        'GET /api/v1.1/voice-quality/webhooks',
        (params: object) => t.client.voiceQuality.webhooks.list(params),
      ],
      ['webhooks.list(params)', names.webhookList, 'GET /api/v1.1/webhooks', (params: object) => t.client.webhooks.list(params)],
      [
        'webhooks.deliveries.list(params)',
        names.webhookDeliveryList,
        'GET /api/v1.1/webhook-deliveries',
        (params: object) => t.client.webhooks.deliveries.list(params),
      ],
    ] as const
  ).map(([name, params, route, list]): Surface => ({
    name,
    names: params,
    call: (options) => refusal(() => list(options)),
    context: `${route}: invalid request: `,
    kind: 'query parameter',
    misspellings: [
      ['pagesize', 'pageSize'],
      ['page_size', 'pageSize'],
      ['pgae', 'page'],
    ],
  })),
  {
    name: 'new PartnerClient({ rateLimit })',
    names: names.rateLimit,
    call: (options) => refusal(() => client({ rateLimit: options })),
    context: '',
    kind: 'client option',
    path: 'rateLimit.',
    misspellings: [['acount', 'account']],
  },
  {
    name: 'new PartnerClient({ rateLimit: { account } })',
    names: names.windowLimit,
    call: (options) => refusal(() => client({ rateLimit: { account: { ...options, limit: 10, windowMs: 1000 } } })),
    context: '',
    kind: 'client option',
    path: 'rateLimit.account.',
    misspellings: [
      ['window', 'windowMs'],
      ['limt', 'limit'],
    ],
  },
  {
    name: 'new PartnerClient({ rateLimit: { endpoints } })',
    names: names.windowLimit,
    call: (options) => refusal(() => client({ rateLimit: { endpoints: { 'GET /api/v1.1/sims': { ...options, limit: 10, windowMs: 1000 } } } })),
    context: '',
    kind: 'client option',
    path: 'rateLimit.endpoints.GET /api/v1.1/sims.',
    misspellings: [['windowMS', 'windowMs']],
  },
  {
    name: 'new RedisRateLimiter(options)',
    names: names.redisRateLimiter,
    call: (options) => refusal(() => new RedisRateLimiter({ ...options, redis })),
    context: '',
    kind: 'RedisRateLimiter option',
    misspellings: [
      ['namspace', 'namespace'],
      ['onStoreErrors', 'onStoreError'],
      ['commandTimeout', 'commandTimeoutMs'],
    ],
  },
  {
    name: 'new RedisRateLimiter({ account })',
    names: names.windowLimit,
    call: (options) => refusal(() => new RedisRateLimiter({ redis, account: { ...options, limit: 10, windowMs: 1000 } })),
    context: '',
    kind: 'RedisRateLimiter option',
    path: 'account.',
    misspellings: [['windw', 'windowMs']],
  },
];

function expectedMessage({ context, kind, path = '' }: Surface, given: string, meant: string): string {
  return `${context}unknown ${kind} ${path}${given}: did you mean ${path}${meant}?`;
}

/** The error class a surface refuses with: per call a RequestValidationError, once built a ConfigurationError. */
function errorClassOf(surface: Surface): typeof ConfigurationError | typeof RequestValidationError {
  return surface.context === '' ? ConfigurationError : RequestValidationError;
}

const misspelt = surfaces.flatMap((surface) => surface.misspellings.map(([given, meant]) => [surface.name, given, meant, surface] as const));

describe('an unknown option, wherever the client side takes options', () => {
  it.each(misspelt)('%s refuses %s, naming %s; nothing is sent', async (_name, given, meant, surface) => {
    const error = await surface.call({ [given]: 1 });
    expect(error).toBeInstanceOf(errorClassOf(surface));
    expect((error as Error).message).toBe(expectedMessage(surface, given, meant));
    // The option at fault: the one given, or the top-level one holding a nested object.
    if (error instanceof ConfigurationError) expect(error.option).toBe(surface.path?.split('.')[0] ?? given);
    if (error instanceof RequestValidationError) expect(error.issues).toHaveLength(1);
    // handle.wait's handle comes from an accepted provisioning: nothing past it is sent.
    const setUp = new Set([TOKEN_ROUTE, 'POST /api/v1.1/esim']);
    expect(t.server.requests.filter((request) => !setUp.has(request.route))).toHaveLength(0);
  });

  it.each(surfaces.map((surface) => [surface.name, surface] as const))(
    '%s refuses a name near none without a suggestion, listing exactly the names of its type',
    async (_name, surface) => {
      const error = await surface.call({ xyzzy: 1 });
      expect(error).toBeInstanceOf(errorClassOf(surface));
      const message = (error as Error).message;
      expect(message.startsWith(surface.context)).toBe(true);
      expect(message).not.toContain('did you mean');
      const listed = /\(allowed: ([^)]*)\)$/.exec(message)?.[1]?.split(', ');
      expect(new Set(listed)).toEqual(new Set(Object.keys(surface.names)));
      expect(listed).toHaveLength(Object.keys(surface.names).length);
    },
  );

  it.each(surfaces.map((surface) => [surface.name, surface] as const))(
    '%s takes every name of its type with the value undefined',
    async (_name, surface) => {
      const everyName = Object.fromEntries(Object.keys(surface.names).map((name) => [name, undefined]));
      const error = await surface.call(everyName);
      // A call may still fail further on (a route the test server does not know), never on its options.
      expect(error).not.toBeInstanceOf(errorClassOf(surface));
    },
  );

  it('reads own members only: an inherited one is not an option', async () => {
    const inherited = Object.create({ baseURL: 'https://elsewhere.example', idempotency_key: 'k' }) as Record<string, unknown>;
    expect(await refusal(() => client(inherited))).toBeUndefined();
    t.server.on('GET /api/v1.1/ping', ok({ pong: true }));
    await expect(t.client.request({ method: 'GET', path: '/api/v1.1/ping', ...Object.create(inherited) })).resolves.toEqual({ pong: true });
    await expect(t.client.request(Object.assign(Object.create(inherited), { method: 'GET', path: '/api/v1.1/ping' }))).resolves.toEqual({
      pong: true,
    });
  });

  it("does not read a header map's names as options", async () => {
    t.server.on('GET /api/v1.1/ping', ok({ pong: true }));
    const headers = { 'x-timeout': '5', baseURL: 'x' };
    await expect(client({ defaultHeaders: headers }).request({ method: 'GET', path: '/api/v1.1/ping', headers })).resolves.toEqual({ pong: true });
    expect(t.server.requestsTo('GET /api/v1.1/ping')[0]?.headers['x-timeout']).toBe('5');
  });

  it('names the first of several unknown options', async () => {
    const error = await refusal(() => client({ timeout: 5, maxRetry: 0 }));
    expect((error as Error).message).toBe('unknown client option timeout: did you mean timeoutMs?');
  });

  it('users.list passes filters through, but refuses another spelling of page or pageSize', async () => {
    t.server.on('GET /api/v1.1/users', ok([], { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } }));
    await t.client.users.list({ department: 'sales', pageSize: 20 });
    expect(t.server.requestsTo('GET /api/v1.1/users')[0]?.path).toBe('/api/v1.1/users?department=sales&pageSize=20');
    for (const [given, meant] of [
      ['page_size', 'pageSize'],
      ['PAGE', 'page'],
    ]) {
      const error = await refusal(() => t.client.users.list({ [given as string]: 1 }));
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as Error).message).toBe(`GET /api/v1.1/users: invalid request: unknown query parameter ${given}: did you mean ${meant}?`);
    }
    expect(t.server.requestsTo('GET /api/v1.1/users')).toHaveLength(1);
  });
});
