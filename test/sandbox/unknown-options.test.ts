/**
 * The sandbox's options refuse an unknown member as every options object of the package does:
 * naming it and the nearest known one, or listing the allowed ones when none is near; a
 * TypeError, as for a value of the wrong kind.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox, startSandbox } from '../../src/sandbox/index.js';
import type {
  SandboxAccount,
  SandboxCredentials,
  SandboxFaults,
  SandboxLimits,
  SandboxOptions,
  StartSandboxOptions,
} from '../../src/sandbox/index.js';

/**
 * Every name each options type declares, as the compiler checks it: a table missing a member, or
 * naming one the type lacks, does not compile.
 */
const sandboxNames = {
  seed: true,
  simCount: true,
  tokenTtlSeconds: true,
  rateLimitWindowMs: true,
  rateLimit: true,
  transactionDelayMs: true,
  timeScale: true,
  deliveryTimeoutMs: true,
  now: true,
  faults: true,
  credentials: true,
  limits: true,
  account: true,
} satisfies Record<keyof SandboxOptions, true>;
const names = {
  createSandbox: sandboxNames,
  startSandbox: { ...sandboxNames, port: true, host: true, exposeOnNetwork: true, allowedHosts: true } satisfies Record<
    keyof StartSandboxOptions,
    true
  >,
  limits: {
    maxBodyBytes: true,
    maxJsonDepth: true,
    idempotencyKeyTtlMs: true,
    maxIdempotencyKeys: true,
    maxDiscardBytes: true,
    discardTimeoutMs: true,
  } satisfies Record<keyof SandboxLimits, true>,
  faults: {
    errorRate: true,
    latencyMs: true,
    resetRate: true,
    resetAfterRate: true,
    unavailableRate: true,
    gatewayRate: true,
    throttleRate: true,
    throttleRetryAfterSeconds: true,
    hangRate: true,
    hangMs: true,
    seed: true,
  } satisfies Record<keyof SandboxFaults, true>,
  credentials: { key: true, secret: true, standardKey: true, standardSecret: true } satisfies Record<keyof SandboxCredentials, true>,
  account: { apiAccess: true, customerMissing: true } satisfies Record<keyof SandboxAccount, true>,
};

/** What starting (then closing) a sandbox with these options threw; undefined when it started. */
async function refusal(start: () => Promise<{ close(): Promise<void> }> | { close(): Promise<void> }): Promise<unknown> {
  try {
    await (await start()).close();
    return undefined;
  } catch (error) {
    return error;
  }
}

interface Surface {
  name: string;
  names: Readonly<Record<string, true>>;
  /** Where the object sits (`limits.`). */
  path: string;
  call(options: Record<string, unknown>): Promise<unknown>;
  misspellings: Array<[given: string, meant: string]>;
}

const nested = (key: 'limits' | 'faults' | 'credentials' | 'account', misspellings: Surface['misspellings']): Surface => ({
  name: `startSandbox({ ${key} })`,
  names: names[key],
  path: `${key}.`,
  call: (options) => refusal(() => startSandbox({ [key]: options })),
  misspellings,
});

const surfaces: Surface[] = [
  {
    name: 'createSandbox(options)',
    names: names.createSandbox,
    path: '',
    call: (options) => refusal(() => createSandbox(options)),
    misspellings: [
      ['sed', 'seed'],
      ['simCont', 'simCount'],
      ['tokenTtl', 'tokenTtlSeconds'],
      ['time_scale', 'timeScale'],
      ['fault', 'faults'],
    ],
  },
  {
    name: 'startSandbox(options)',
    names: names.startSandbox,
    path: '',
    call: (options) => refusal(() => startSandbox(options)),
    misspellings: [
      ['prot', 'port'],
      ['hostname', 'host'],
      ['expose', 'exposeOnNetwork'],
      ['allowedHost', 'allowedHosts'],
    ],
  },
  nested('limits', [
    ['maxBodyByte', 'maxBodyBytes'],
    ['maxBody', 'maxBodyBytes'],
  ]),
  nested('faults', [
    ['errRate', 'errorRate'],
    ['latency', 'latencyMs'],
  ]),
  nested('credentials', [['standard_key', 'standardKey']]),
  nested('account', [['apiAcces', 'apiAccess']]),
];

const misspelt = surfaces.flatMap((surface) => surface.misspellings.map(([given, meant]) => [surface.name, given, meant, surface] as const));

describe('an unknown sandbox option', () => {
  it.each(misspelt)('%s refuses %s with a TypeError naming %s, before anything listens', async (_name, given, meant, surface) => {
    const error = await surface.call({ [given]: 1 });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`unknown sandbox option ${surface.path}${given}: did you mean ${surface.path}${meant}?`);
  });

  it.each(surfaces.map((surface) => [surface.name, surface] as const))(
    '%s refuses a name near none, listing exactly the names of its type',
    async (_name, surface) => {
      const error = await surface.call({ xyzzy: 1 });
      expect(error).toBeInstanceOf(TypeError);
      const message = (error as Error).message;
      expect(message.startsWith(`unknown sandbox option ${surface.path}xyzzy (allowed: `)).toBe(true);
      const listed = /\(allowed: ([^)]*)\)$/.exec(message)?.[1]?.split(', ');
      expect(new Set(listed)).toEqual(new Set(Object.keys(surface.names)));
      expect(listed).toHaveLength(Object.keys(surface.names).length);
    },
  );

  it.each(surfaces.map((surface) => [surface.name, surface] as const))(
    '%s takes every name of its type with the value undefined',
    async (_name, surface) => {
      const everyName = Object.fromEntries(Object.keys(surface.names).map((name) => [name, undefined]));
      expect(await surface.call(everyName)).toBeUndefined();
    },
  );
});
