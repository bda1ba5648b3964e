/**
 * Every option of startSandbox(), nested ones included, refuses a bad value with a TypeError or
 * RangeError naming it, before anything is created or listens; and the sandbox listens on
 * loopback only unless exposeOnNetwork says otherwise.
 */
import { createServer, Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle, StartSandboxOptions } from '../../src/sandbox/index.js';
import { exposureWarning } from '../../src/sandbox/bind.js';

/** A value of every wrong kind for an option that takes a number. */
const NOT_NUMBERS: unknown[] = ['abc', '', ' ', '10', Number.NaN, Infinity, -Infinity, null, true, {}, [], 10n];
const NOT_BOOLEANS: unknown[] = ['false', 'true', '', 0, 1, null, {}];

/** [option path, bad values]: the path is what the error must name. */
const NUMBER_OPTIONS: Array<[string, unknown[]]> = [
  ['port', [-1, 65_536, 1.5, 1e300]],
  ['seed', [1.5, 2 ** 53, -(2 ** 53)]],
  ['simCount', [19, 100_001, 20.5, 0, -1]],
  ['tokenTtlSeconds', [0, -1, 1.5, 1e12]],
  ['rateLimitWindowMs', [0, 0.5, 1e12]],
  ['transactionDelayMs', [-1, 0.5, 1e12]],
  ['timeScale', [0, -1, 1_000_001]],
  ['deliveryTimeoutMs', [0, 1.5, 2 ** 31]],
  ['limits.maxBodyBytes', [0, 1.5, 2 ** 30 + 1]],
  ['limits.maxJsonDepth', [0, 1.5, 10_001]],
  ['limits.idempotencyKeyTtlMs', [0, 1.5, 1e15]],
  ['limits.maxIdempotencyKeys', [0, 1.5, 10_000_001]],
  ['limits.maxDiscardBytes', [-1, 1.5, 2 ** 40 + 1]],
  ['limits.discardTimeoutMs', [-1, 1.5, 2_147_483_648]],
  ['faults.errorRate', [-0.1, 1.1]],
  ['faults.resetRate', [-0.1, 1.1]],
  ['faults.resetAfterRate', [-0.1, 1.1]],
  ['faults.unavailableRate', [-0.1, 1.1]],
  ['faults.gatewayRate', [-0.1, 1.1]],
  ['faults.throttleRate', [-0.1, 1.1]],
  ['faults.hangRate', [-0.1, 1.1]],
  ['faults.throttleRetryAfterSeconds', [-1, 1.5, 86_401]],
  ['faults.hangMs', [-1, 1.5, 600_001]],
  ['faults.latencyMs', [-1, 1.5, 600_001]],
  ['faults.seed', [1.5, 2 ** 53]],
];
const BOOLEAN_OPTIONS = ['rateLimit', 'exposeOnNetwork', 'account.apiAccess', 'account.customerMissing'];
const OBJECT_OPTIONS = ['faults', 'limits', 'account', 'credentials'];

/** Hosts that are not an address or a name at all. */
const BAD_HOSTS: unknown[] = ['', ' ', ' 127.0.0.1', 'a b', 'http://127.0.0.1', '127.0.0.1:4010', '[::1', 'user@localhost', '-x', 1, null, true, []];
/** Hosts off loopback (or that may resolve off it): refused without exposeOnNetwork. */
const OFF_LOOPBACK = [
  '0.0.0.0',
  '::',
  '[::]',
  '0',
  '192.168.1.10',
  '10.0.0.1',
  '::ffff:10.0.0.1',
  'fe80::1%lo',
  'example.com',
  'localhost.example.com',
  '127.0.0.1.nip.io',
  '127.1',
];

const BAD_NOW: unknown[] = [
  '',
  ' ',
  '1',
  'yesterday',
  '2025-06-01T09:30:00',
  '2025-13-01',
  // Days the month does not have, and the hour 24, which Date.parse() rolls over into the next day.
  '2025-02-29',
  '2025-02-30',
  '2025-06-31',
  '2025-06-31T09:30:00Z',
  '2025-06-01T24:00:00Z',
  '2025-06-01T24:00Z',
  new Date(Number.NaN),
  -1,
  1.5,
  1e16,
  Infinity,
  true,
  {},
  null,
];

/** An options object with `value` at `path` (`limits.maxBodyBytes` → { limits: { maxBodyBytes } }). */
function at(path: string, value: unknown): StartSandboxOptions {
  const [head, tail] = path.split('.') as [string, string | undefined];
  return tail === undefined ? { [head]: value } : { [head]: { [tail]: value } };
}

interface Case {
  options: unknown;
  /** What the message must name. */
  names: string;
}

const cases: Case[] = [
  ...NUMBER_OPTIONS.flatMap(([path, range]) => [...NOT_NUMBERS, ...range].map((value) => ({ options: at(path, value), names: path }))),
  ...BOOLEAN_OPTIONS.flatMap((path) => NOT_BOOLEANS.map((value) => ({ options: at(path, value), names: path }))),
  ...OBJECT_OPTIONS.flatMap((path) => ['x', 1, null, [], true].map((value) => ({ options: at(path, value), names: path }))),
  ...BAD_HOSTS.map((host) => ({ options: { host }, names: 'host' })),
  ...OFF_LOOPBACK.map((host) => ({ options: { host }, names: 'exposeOnNetwork' })),
  ...OFF_LOOPBACK.map((host) => ({ options: { host, exposeOnNetwork: false }, names: 'exposeOnNetwork' })),
  ...BAD_NOW.map((now) => ({ options: { now }, names: 'now' })),
  { options: { prot: 4010 }, names: 'prot' },
  { options: { Port: 4010 }, names: 'Port' },
  { options: { seed: 1, sede: 2 }, names: 'sede' },
  { options: { faults: { errorRat: 0.1 } }, names: 'faults.errorRat' },
  { options: { limits: { maxBodyByte: 1 } }, names: 'limits.maxBodyByte' },
  { options: { account: { apiAcess: false } }, names: 'account.apiAcess' },
  { options: { credentials: { keyy: 'pk_x' } }, names: 'credentials.keyy' },
  { options: { faults: { hangRate: 0.6, throttleRate: 0.6 } }, names: 'faults' },
  { options: { faults: { latencyMs: [1] } }, names: 'faults.latencyMs' },
  { options: { faults: { latencyMs: [1, 2, 3] } }, names: 'faults.latencyMs' },
  { options: { faults: { latencyMs: [5, 1] } }, names: 'faults.latencyMs' },
  { options: { faults: { latencyMs: ['1', 2] } }, names: 'faults.latencyMs[0]' },
  { options: { faults: { latencyMs: [1, Infinity] } }, names: 'faults.latencyMs[1]' },
  ...['key', 'secret', 'standardKey', 'standardSecret'].flatMap((name) =>
    [5, null, '', ' ', 'has space', 'é', 'x'.repeat(257)].map((value) => ({
      options: at(`credentials.${name}`, value),
      names: `credentials.${name}`,
    })),
  ),
  { options: { credentials: { key: 'pk_same', standardKey: 'pk_same' } }, names: 'credentials.standardKey' },
  { options: { allowedHosts: 'dev.example.test' }, names: 'allowedHosts' },
  { options: { allowedHosts: ['http://dev.example.test/'] }, names: 'allowedHosts' },
  ...[null, 'x', [], 1, true].map((options) => ({ options, names: 'options' })),
];

/** The error a start rejects with; a sandbox that started anyway is closed and fails the test. */
async function rejection(start: Promise<SandboxHandle>): Promise<Error> {
  const result = await start.then(
    (sandbox) => sandbox,
    (error: unknown) => error as Error,
  );
  if (result instanceof Error) return result;
  await result.close();
  throw new Error('the sandbox started');
}

/** The names the error for an unknown member lists as allowed: the options that exist. */
async function allowedNames(options: unknown): Promise<string[]> {
  const error = await startSandbox(options as StartSandboxOptions).then(
    (sandbox) => sandbox.close().then(() => undefined),
    (e: unknown) => e,
  );
  const list = /\(allowed: ([^)]*)\)/.exec(error instanceof Error ? error.message : '')?.[1];
  if (list === undefined) throw new Error(`no list of allowed options for ${JSON.stringify(options)}`);
  return list.split(', ');
}

/** The servers of the process: a sandbox that started, or a server left open, shows here. */
function resources(): string[] {
  return process.getActiveResourcesInfo().filter((name) => name === 'TCPServerWrap');
}

const started: SandboxHandle[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(started.splice(0).map((sandbox) => sandbox.close()));
});

describe('startSandbox() options', () => {
  it('the table covers every option and every member of every nested option', async () => {
    const covered = new Set(cases.map((c) => c.names.replace(/\[\d\]$/, '')));
    for (const name of await allowedNames({ zz: 1 })) expect(covered.has(name), name).toBe(true);
    for (const nested of OBJECT_OPTIONS) {
      for (const member of await allowedNames({ [nested]: { zz: 1 } })) expect(covered.has(`${nested}.${member}`), `${nested}.${member}`).toBe(true);
    }
  });

  it.each(cases.map((c) => [inspect(c.options, { breakLength: Infinity }), c] as const))(
    'refuses %s with a TypeError or RangeError naming the option, before anything listens',
    async (_label, { options, names }) => {
      const listen = vi.spyOn(Server.prototype, 'listen').mockImplementation(() => {
        throw new Error('listen() reached');
      });
      const before = resources();
      const error = await startSandbox(options as StartSandboxOptions).then(
        () => new Error('started'),
        (e: unknown) => e,
      );
      expect(error).toSatisfy((e) => e instanceof TypeError || e instanceof RangeError);
      const message = (error as Error).message;
      if (names !== 'options') expect(message).toContain(names);
      else expect(message).toMatch(/^invalid sandbox options: must be an object/);
      expect(message).not.toMatch(/\n/);
      expect(listen).not.toHaveBeenCalled();
      expect(resources().length).toBeLessThanOrEqual(before.length);
    },
  );

  it('never quotes a credential in its error', async () => {
    const secret = 'sk_live_pasted by mistake';
    const error = await rejection(startSandbox({ credentials: { secret } }));
    expect(error.message).toContain('credentials.secret');
    expect(`${error.message} ${JSON.stringify(error)} ${error.stack}`).not.toContain('pasted');
  });

  it('createSandbox() refuses the listening options it would ignore, and unknown ones', () => {
    expect(() => createSandbox({ port: 4010 } as never)).toThrow(TypeError);
    expect(() => createSandbox({ port: 4010 } as never)).toThrow(/unknown sandbox option port/);
    expect(() => createSandbox({ host: '0.0.0.0' } as never)).toThrow(/unknown sandbox option host/);
    expect(() => createSandbox({ simCont: 30 } as never)).toThrow('unknown sandbox option simCont: did you mean simCount?');
    expect(() => createSandbox({ colour: 'red' } as never)).toThrow(/^unknown sandbox option colour \(allowed: seed, simCount, /);
  });

  it('takes every accepted form: port 0 picks a free port, bracketed IPv6, dates as Date, ISO 8601 or epoch ms', async () => {
    const free = await startSandbox({ port: 0 });
    started.push(free);
    expect(free.port).toBeGreaterThan(0);
    expect(free.url).toBe(`http://127.0.0.1:${free.port}`);
    for (const host of ['::1', '[::1]', 'localhost', '127.0.0.2', 'LOCALHOST']) {
      const sandbox = await startSandbox({ host });
      started.push(sandbox);
      expect((await fetch(`${sandbox.url}/_sandbox/time`)).status, host).toBe(200);
    }
    expect(started[1]?.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(started[2]?.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    for (const now of [
      new Date('2025-06-01T00:00:00Z'),
      '2025-06-01',
      '2025-06-01T00:00:00Z',
      '2025-06-01T02:00:00+02:00',
      '2025-05-31T20:00-04:00',
      '2025-06-01T00:00:00.0004Z',
      1_748_736_000_000,
    ]) {
      const sandbox = createSandbox({ now });
      // The clock runs from there (GET /_sandbox/time): its first minute is all a slow machine can have spent.
      const time = (await (await sandbox.handler(new Request('http://sandbox.test/_sandbox/time'))).json()) as { now: string };
      const elapsed = Date.parse(time.now) - Date.parse('2025-06-01T00:00:00Z');
      expect(elapsed, String(now)).toBeLessThan(60_000);
      expect(elapsed, String(now)).toBeGreaterThanOrEqual(0);
      await sandbox.close();
    }
  });

  it('a port in use rejects with the listen error (its code kept) and leaves no server behind', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = holder.address() as { port: number };
      const before = resources();
      const error: NodeJS.ErrnoException = await rejection(startSandbox({ port, faults: { latencyMs: 1 } }));
      expect(error.code).toBe('EADDRINUSE');
      // The refused server's handle closes in a later turn of the event loop.
      for (let turn = 0; turn < 100 && resources().length > before.length; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(resources().length).toBeLessThanOrEqual(before.length);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe('binding off loopback', () => {
  it('listens on a host that is not a loopback literal only with exposeOnNetwork, and warns with the URL it answers on', async () => {
    // `127.1` is a name to the bind rule (not a dotted quad), which the resolver reads as
    // 127.0.0.1: the opt-in path runs end to end while nothing listens beyond loopback.
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      await expect(startSandbox({ host: '127.1' })).rejects.toThrow(/host: 127\.1 is not a loopback address.*exposeOnNetwork: true/);
      const sandbox = await startSandbox({ host: '127.1', exposeOnNetwork: true });
      started.push(sandbox);
      await new Promise((resolve) => setImmediate(resolve));
      const exposed = warnings.filter((w) => w.name === 'SandboxExposedWarning');
      expect(exposed).toHaveLength(1);
      const text = exposed[0]?.message ?? '';
      expect(text).toContain(`http://127.0.0.1:${sandbox.port}`);
      expect(text).toMatch(/no authentication/);
      expect((exposed[0] as Error & { code?: string }).code).toBe('PARTNER_SANDBOX_EXPOSED');
      for (const credential of Object.values(sandbox.credentials)) expect(text).not.toContain(credential);
      expect((await fetch(`http://127.0.0.1:${sandbox.port}/_sandbox/time`)).status).toBe(200);
      // Loopback needs no opt-in and draws no warning, with or without it.
      started.push(await startSandbox({ host: '127.0.0.1', exposeOnNetwork: true }), await startSandbox({ host: '::1' }));
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'SandboxExposedWarning')).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('the warning for a wildcard bind names a URL for every address of the machine (warning text only: tests never listen off loopback)', () => {
    const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
    const v4 = addresses.filter((entry) => entry.family === 'IPv4').map((entry) => `http://${entry.address}:4010`);
    expect(v4).toContain('http://127.0.0.1:4010');
    const text = exposureWarning('0.0.0.0', '0.0.0.0', 4010);
    expect(text).toContain('listens on 0.0.0.0:4010');
    for (const url of v4) expect(text).toContain(url);
    const dual = exposureWarning('::', '::', 4010);
    expect(dual).toContain('listens on [::]:4010');
    for (const url of v4) expect(dual).toContain(url);
    for (const entry of addresses) if (entry.family === 'IPv6' && !entry.scopeid) expect(dual).toContain(`http://[${entry.address}]:4010`);
    expect(exposureWarning('dev.example.test', '192.0.2.7', 4010)).toContain(
      'listens on 192.0.2.7:4010 (host dev.example.test), at http://192.0.2.7:4010.',
    );
  });
});
