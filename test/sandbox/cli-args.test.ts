/**
 * The command line of `partner-sandbox`, parsed in process through the bin's own parser: every
 * flag refuses a bad value by name, with the grammar of its option. test/sandbox/cli/ runs a few
 * of these through the built bin.
 */
import { describe, expect, it } from 'vitest';
import { HELP, parseCommand, UsageError } from '../../src/sandbox/cli-args.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { resolveOptions, type ResolvedSandboxOptions } from '../../src/sandbox/options.js';
import { fill, LENGTHS, TEXT_SHAPES, withinBound } from '../helpers/linear-time.js';

const NUMBER_FLAGS: Array<[flag: string, bad: string[]]> = [
  ['port', ['-1', '65536', '1.5', '99999999999999999999']],
  ['seed', ['1.5', '9007199254740992']],
  ['sims', ['19', '100001', '20.5', '0']],
  ['token-ttl', ['0', '1.5', '1e3']],
  ['rate-limit-window', ['0', '0.5']],
  ['transaction-delay', ['-1', '0.5']],
  ['time-scale', ['0', '-1', '1000001', '1e3', '.', '1.2.3']],
  ['delivery-timeout', ['0', '2147483648']],
];
/** What no number flag takes: blanks, words, hex, signs alone, padding. */
const NOT_NUMBERS = ['', ' ', 'abc', '0x10', '+', '-', ' 1', '1 ', '1_000', 'Infinity', 'NaN', '١٢'];
/**
 * A value in range written otherwise than in decimal digits: a '+', '-0', a leading zero, a point
 * without digits on one side. Number() reads each as the number in range it spells.
 */
const OTHER_SPELLINGS: Array<[flag: string, values: string[]]> = [
  ['port', ['+80', '080', '0080', '+0', '-0']],
  ['seed', ['+5', '05', '-05', '-0', '+0']],
  ['sims', ['+20', '020']],
  ['token-ttl', ['+60', '060']],
  ['rate-limit-window', ['+1000', '01000']],
  ['transaction-delay', ['+10', '010', '-0', '00']],
  ['time-scale', ['+2', '02', '2.', '.5', '+.5', '00.5', '02.50']],
  ['delivery-timeout', ['+100', '0100']],
];

const cases: Array<[argv: string[], names: string]> = [
  ...NUMBER_FLAGS.flatMap(([flag, bad]) =>
    [...NOT_NUMBERS, ...bad].flatMap((value): Array<[string[], string]> => [
      [[`--${flag}=${value}`], `--${flag}`],
      ...(value.startsWith('-') ? [] : [[[`--${flag}`, value], `--${flag}`] as [string[], string]]),
    ]),
  ),
  ...['', ' ', 'a b', 'http://127.0.0.1', '127.0.0.1:4010', '[::1'].map((host): [string[], string] => [[`--host=${host}`], '--host']),
  ...['0.0.0.0', '::', '[::]', '192.168.1.10', 'example.com', '127.1', '0'].map((host): [string[], string] => [['--host', host], '--expose']),
  ...Object.keys({
    port: 0,
    host: 0,
    seed: 0,
    sims: 0,
    'token-ttl': 0,
    'rate-limit-window': 0,
    'transaction-delay': 0,
    'time-scale': 0,
    'delivery-timeout': 0,
  }).flatMap((flag): Array<[string[], string]> => [
    [[`--${flag}`], `--${flag} needs a value`],
    [[`--${flag}`, '--seed', '5'], `--${flag} needs a value`],
    [[`--${flag}`, '-h'], `--${flag} needs a value`],
  ]),
  // A sign, a leading zero or a bare point is refused with the rule of decimal digits, never read.
  ...OTHER_SPELLINGS.flatMap(([flag, values]) => values.map((value): [string[], string] => [[`--${flag}=${value}`], `--${flag} must be`])),
  [['--port=+80'], '--port must be an integer from 0 to 65535, in decimal digits, no sign or leading zero (got "+80")'],
  [
    ['--seed=+5'],
    '--seed must be an integer from -9007199254740991 to 9007199254740991, in decimal digits, \'-\' only before a negative one, no leading zero (got "+5")',
  ],
  [
    ['--time-scale=.5'],
    '--time-scale must be a number greater than 0 and at most 1000000, in decimal digits with an optional fraction (0.5), no sign or leading zero (got ".5")',
  ],
  [['--seed', '-1'], '--seed=-1'],
  [['--port', '4010', '--port', '4011'], '--port is given more than once'],
  [['--port=4010', '--port', '4010'], '--port is given more than once'],
  [['--no-rate-limit', '--no-rate-limit'], '--no-rate-limit is given more than once'],
  [['--expose', '--expose'], '--expose is given more than once'],
  [['--no-rate-limit=true'], '--no-rate-limit takes no value'],
  [['--expose=yes'], '--expose takes no value'],
  [['--nope'], 'unknown flag --nope'],
  [['--Port', '1'], 'unknown flag --Port'],
  [['--rate-limit'], 'unknown flag --rate-limit'],
  [['--constructor=1'], 'unknown flag --constructor'],
  [['-p', '1'], 'unknown flag "-p"'],
  [['4010'], 'unexpected argument "4010"'],
  [['--', '--port'], 'unexpected argument "--port"'],
  ...['', ' ', ' dev.example.test', 'dev.example.test ', 'http://dev.example.test', 'dev.example.test:4010', 'a b', '..example.test'].map(
    (name): [string[], string] => [[`--allowed-host=${name}`], '--allowed-host'],
  ),
  [['--allowed-host'], '--allowed-host needs a value'],
];

describe('partner-sandbox command line', () => {
  it.each(cases)('refuses %j, naming %s', (argv, names) => {
    let error: unknown;
    try {
      parseCommand(argv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toContain(names);
    expect(message).not.toMatch(/\n/);
  });

  it('every flag of the help is in the table', () => {
    const flags = new Set([...HELP.matchAll(/--([a-z-]+)/g)].map((m) => m[1] as string));
    const tested = new Set(cases.flatMap(([argv]) => argv.map((arg) => /^--([a-z-]+)/.exec(arg)?.[1]).filter((f) => f !== undefined)));
    for (const flag of flags) if (flag !== 'help') expect(tested.has(flag), flag).toBe(true);
  });

  it('reads each flag into its option, in either form, with the command defaults', () => {
    expect(parseCommand([])).toEqual({ help: false, options: { port: 4010 } });
    expect(
      parseCommand([
        '--port=0',
        '--host',
        '[::1]',
        '--seed=-7',
        '--sims',
        '20',
        '--token-ttl',
        '60',
        '--rate-limit-window=1000',
        '--no-rate-limit',
        '--transaction-delay',
        '0',
        '--time-scale',
        '0.5',
        '--delivery-timeout',
        '2147483647',
      ]),
    ).toEqual({
      help: false,
      options: {
        port: 0,
        host: '::1',
        seed: -7,
        simCount: 20,
        tokenTtlSeconds: 60,
        rateLimitWindowMs: 1000,
        rateLimit: false,
        transactionDelayMs: 0,
        timeScale: 0.5,
        deliveryTimeoutMs: 2_147_483_647,
      },
    });
    expect(parseCommand(['--host', '0.0.0.0', '--expose'])).toEqual({ help: false, options: { port: 4010, host: '0.0.0.0', exposeOnNetwork: true } });
    expect(parseCommand(['--allowed-host', 'Dev.Example.Test', '--allowed-host=.corp.test'])).toEqual({
      help: false,
      options: { port: 4010, allowedHosts: ['dev.example.test', '.corp.test'] },
    });
    expect(parseCommand(['--port', '1', '-h'])).toEqual({ help: true });
    expect(parseCommand(['--help'])).toEqual({ help: true });
    expect(parseCommand(['--port', '0', '--'])).toEqual({ help: false, options: { port: 0 } });
  });

  it('what the parser accepts, startSandbox accepts: the extremes of every flag start a sandbox', async () => {
    const high = parseCommand(['--port=0', '--seed=9007199254740991', '--sims=20', '--time-scale=1000000', '--delivery-timeout=2147483647']);
    const low = parseCommand([
      '--port=0',
      '--seed=-9007199254740991',
      '--token-ttl=1',
      '--rate-limit-window=1',
      '--transaction-delay=0',
      '--time-scale=0.000001',
    ]);
    for (const command of [high, low]) {
      if (command.help) throw new Error('help');
      const sandbox = await startSandbox(command.options);
      await sandbox.close();
    }
  });

  it('refuses a command line of hostile arguments of 1 MiB in linear time, in a message of one short line', async () => {
    for (const length of LENGTHS) {
      const values = [
        ...Object.values(TEXT_SHAPES).map((build) => build(length)),
        fill('1', length),
        `${fill('1', length - 1)}x`,
        fill('a.', length),
      ];
      const argvs = values.flatMap((value) => [
        [`--${value}`],
        [`--${value}=1`],
        ...['port', 'time-scale', 'host', 'allowed-host'].map((flag) => [`--${flag}`, value]),
        ['--host', `${value}:1`],
      ]);
      for (const argv of argvs) {
        const message = await withinBound(`${argv.length} arguments of ${length} characters`, () => {
          try {
            parseCommand(argv);
          } catch (error) {
            if (error instanceof UsageError) return error.message;
            throw error;
          }
          return 'accepted';
        });
        expect(message.length).toBeLessThan(300);
      }
    }
  });
});

describe("the help's ranges and defaults", () => {
  /** `--sims <n>   number of SIMs, 20..100000 (default 300)` → flag, low, high, default (a line may wrap). */
  const ranged = [...HELP.replace(/\n {29}/g, ' ').matchAll(/^ {2}--([\w-]+) <\w+> .*?, (\d+)\.\.(\d+(?:e\d+)?) \(default (\d+)[;)]/gm)].map(
    ([, flag = '', low = '', high = '', fallback = '']) => [flag, Number(low), Number(high), Number(fallback)] as const,
  );
  const optionOf: Record<string, keyof ResolvedSandboxOptions | 'port'> = {
    port: 'port',
    sims: 'simCount',
    'token-ttl': 'tokenTtlSeconds',
    'rate-limit-window': 'rateLimitWindowMs',
    'transaction-delay': 'transactionDelayMs',
    'delivery-timeout': 'deliveryTimeoutMs',
  };
  const parsed = (argv: string[]): Record<string, unknown> => {
    const command = parseCommand(argv);
    if (command.help) throw new Error('the command asked for help');
    return command.options as Record<string, unknown>;
  };

  it('name every ranged number flag', () => {
    expect(ranged.map(([flag]) => flag).sort()).toEqual(Object.keys(optionOf).sort());
  });

  it.each(ranged)('--%s takes %d and %d, refuses one past either end, and defaults as the help says', (flag, low, high, fallback) => {
    const option = optionOf[flag] ?? 'port';
    expect(parsed([`--${flag}=${low}`])[option]).toBe(low);
    expect(parsed([`--${flag}=${high}`])[option]).toBe(high);
    expect(() => parseCommand([`--${flag}=${high + 1}`])).toThrow(UsageError);
    if (low > 0) expect(() => parseCommand([`--${flag}=${low - 1}`])).toThrow(UsageError);
    const defaults = option === 'port' ? parsed([]) : (resolveOptions({}) as unknown as Record<string, unknown>);
    expect(defaults[option]).toBe(fallback);
  });
});
