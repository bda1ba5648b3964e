/**
 * The sandbox guide's tables of flags, options and limits, held to the sandbox's own grammar
 * (NUMBER_RULES of option-grammar.ts, shared by the options and the command line), its defaults
 * as it resolves them, the command's parser and help, and what the sandbox answers past a limit.
 *
 * Not checked here: that `-h` exits 0 (the command as a process: test/sandbox/cli/), and the
 * discard limits' effect on a connection (test/sandbox/oversized-bodies.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { HELP, parseCommand, UsageError } from '../../src/sandbox/cli-args.js';
import { LATEST_CLOCK_MS } from '../../src/sandbox/clock.js';
import { NUMBER_RULES, type NumberRule } from '../../src/sandbox/option-grammar.js';
import { resolveListenOptions, resolveOptions } from '../../src/sandbox/options.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { call, open } from './helpers.js';

type RuleName = keyof typeof NUMBER_RULES;

/** A bound as the guides write it: `65535`, `1e11`, `2^30`, `3.1536e11`, `2147483647`. */
function bound(written: string): number {
  const power = /^(\d+)\^(\d+)$/.exec(written);
  return power ? Number(power[1]) ** Number(power[2]) : Number(written);
}

/** The number rule a cell states: `integer 0..65535`, `integer, ±(2^53 − 1)`, `decimal number > 0 and ≤ 1000000`. */
function ruleOf(cell: string): NumberRule | undefined {
  const symmetric = /^integer,? ±\((\d+)\^(\d+) − 1\)/.exec(cell);
  if (symmetric) {
    const max = Number(symmetric[1]) ** Number(symmetric[2]) - 1;
    return { integer: true, min: -max, max };
  }
  const closed = /^integer (\S+?)\.\.([^\s,;]+)/.exec(cell);
  if (closed) return { integer: true, min: bound(closed[1] ?? ''), max: bound(closed[2] ?? '') };
  const above = /^(?:decimal )?number > (\S+) and ≤ (\S+)/.exec(cell);
  if (above) return { integer: false, min: bound(above[1] ?? ''), max: bound(above[2] ?? ''), minExclusive: true };
  return undefined;
}

/** The options startSandbox takes, as its refusal of an unknown one lists them. */
function startOptionNames(): string[] {
  try {
    resolveListenOptions({ zzzzzzzzzzzz: 1 });
  } catch (error) {
    const allowed = /\(allowed: (.*)\)$/.exec((error as Error).message)?.[1];
    if (allowed) return allowed.split(', ');
  }
  throw new Error('the sandbox no longer lists its options when refusing an unknown one');
}

/** The options a command line starts the sandbox with. */
function optionsOf(argv: string[]): Record<string, unknown> {
  const command = parseCommand(argv);
  if (command.help) throw new Error(`${argv.join(' ')} asks for help`);
  return Object.fromEntries(Object.entries(command.options));
}

/** Checks startSandbox's options as it does: where to listen, then the sandbox's own. */
function resolveAll(input: Record<string, unknown>): void {
  resolveOptions(resolveListenOptions(input).sandbox);
}

/** A documented default (`0`, `'strict'`, `[]`, `127.0.0.1`, `{ apiAccess: true, … }`) as a value. */
function literal(text: string): unknown {
  const json = text.replace(/'/g, '"').replace(/([{,]\s*)(\w+):/g, '$1"$2":');
  try {
    return JSON.parse(json);
  } catch {
    return text;
  }
}

describe("the sandbox guide's table of command-line flags", () => {
  const { rows } = findTable(['Flag', 'Option', 'Value']);
  const flagsOf = (cell: string): string[] => codeSpans(cell).map((span) => span.split(' ')[0] ?? '');

  it('has a row for every flag the help prints', () => {
    const helped = [...HELP.matchAll(/^ {2}((?:-\w, )?--[\w-]+)/gm)].flatMap((match) => (match[1] ?? '').split(', '));
    expect(rows.flatMap(([flag = '']) => flagsOf(flag)).sort()).toEqual(helped.sort());
  });

  it.each(rows.filter(([, option]) => option !== '').map(([flag = '', option = '', value = '']) => [flagsOf(flag)[0] ?? '', option, value]))(
    '%s sets %s, taking %s',
    (flag, option, value) => {
      const [name = '', setting] = (codeSpans(option)[0] ?? '').split(': ');
      const rule = ruleOf(value);
      if (setting !== undefined) {
        // A switch: `exposeOnNetwork: true`, `rateLimit: false`.
        expect(parseCommand([flag, ...(name === 'exposeOnNetwork' ? ['--host', '0.0.0.0'] : [])])).toMatchObject({
          options: { [name]: literal(setting) },
        });
        return;
      }
      if (rule) {
        expect(NUMBER_RULES[name as RuleName]).toEqual(expect.objectContaining(rule));
        const read = (text: string) => optionsOf([`${flag}=${text}`])[name];
        expect([read(String(rule.max)), rule.minExclusive ? undefined : read(String(rule.min))]).toEqual([
          rule.max,
          rule.minExclusive ? undefined : rule.min,
        ]);
        for (const past of [String(rule.max * 10), rule.minExclusive ? String(rule.min) : String(rule.min - 1)])
          expect(() => parseCommand([`${flag}=${past}`])).toThrow(UsageError);
      }
      const defaultValue = /default `?([^`;,\s]+)`?/.exec(value)?.[1];
      if (defaultValue) expect(optionsOf([])[name] ?? resolveListenOptions({}).listen[name as 'host']).toEqual(literal(defaultValue));
      if (name === 'allowedHosts') {
        expect(value).toContain('repeatable');
        expect(parseCommand([flag, 'a.example.test', flag, '.b.example.test'])).toMatchObject({
          options: { allowedHosts: ['a.example.test', '.b.example.test'] },
        });
      }
      if (!rule && !defaultValue && name !== 'allowedHosts') throw new Error(`no value rule this test can read in: ${value}`);
    },
  );

  it('prints the flags for -h and --help', () => {
    const row = rows.find(([flag]) => flag === '`-h`, `--help`');
    expect(row?.[2]).toMatch(/^prints the flags/);
    expect([parseCommand(['-h']), parseCommand(['--help'])]).toEqual([{ help: true }, { help: true }]);
  });

  it('defaults the port to 4010 for the command and to 0 for startSandbox', () => {
    const value = rows.find(([flag]) => flag === '`--port <n>`')?.[2] ?? '';
    expect(value).toContain("default 4010 (the command's; `startSandbox` defaults to 0)");
    expect([parseCommand([]), resolveListenOptions({}).listen.port]).toEqual([{ help: false, options: { port: 4010 } }, 0]);
  });
});

describe("the sandbox guide's table of options", () => {
  const { rows } = findTable(['Option', 'Type and range', 'Default', 'Meaning']);
  const resolved = resolveOptions({}) as unknown as Record<string, unknown>;
  const listen = resolveListenOptions({}).listen as unknown as Record<string, unknown>;

  it('has a row for every option of startSandbox, and no other', () => {
    expect(rows.map(([option = '']) => codeSpans(option)[0]).sort()).toEqual(startOptionNames().sort());
  });

  it('marks as startSandbox only exactly the options createSandbox refuses', async () => {
    for (const [option = '', , , meaning = ''] of rows) {
      const name = codeSpans(option)[0] ?? '';
      let refused = false;
      try {
        await createSandbox({ [name]: listen[name] ?? resolved[name] }).close();
      } catch (error) {
        refused = (error as Error).message.startsWith(`unknown sandbox option ${name}`);
      }
      expect([name, refused]).toEqual([name, meaning.startsWith('`startSandbox` only')]);
    }
  });

  it.each(rows.map(([option = '', range = '', defaultValue = '']) => [codeSpans(option)[0] ?? '', range, defaultValue]))(
    '%s is %s, default %s',
    (name, range, documented) => {
      const rule = ruleOf(range);
      if (rule) expect(NUMBER_RULES[name as RuleName]).toEqual(expect.objectContaining(rule));
      if (range === 'boolean') expect(() => resolveAll({ [name]: 'yes' })).toThrow(TypeError);
      const first = codeSpans(documented)[0];
      if (first !== undefined && documented.startsWith('`')) {
        const actual = name in listen ? listen[name] : resolved[name];
        expect([name, actual]).toEqual([name, literal(first)]);
      }
    },
  );

  it('defaults the clock to the real time, credentials to ones derived from the seed, and faults to off', async () => {
    const defaults = Object.fromEntries(rows.map(([option = '', , documented = '']) => [codeSpans(option)[0], documented]));
    expect([defaults['now'], defaults['credentials'], defaults['faults'], defaults['limits']]).toEqual([
      'real time',
      'derived from seed',
      'off',
      'see below',
    ]);
    const before = Date.now();
    expect(resolveOptions({}).startMs).toBeGreaterThanOrEqual(before);
    expect(resolveOptions({}).startMs).toBeLessThanOrEqual(Date.now());
    const keyOf = async (seed: number) => {
      const sandbox = createSandbox({ seed });
      await sandbox.close();
      return sandbox.credentials.key;
    };
    expect(await keyOf(7)).toBe(await keyOf(7));
    expect(await keyOf(7)).not.toBe(await keyOf(8));
    expect(resolveOptions({}).faults).toBeNull();
  });

  it('takes now from 1970 to 9999, a day the month has and an hour 00 to 23', () => {
    const [, range = '', , meaning = ''] = rows.find(([option]) => option === '`now`') ?? [];
    expect(range).toMatch(/1970\.\.9999$/);
    expect([NUMBER_RULES.now.min, new Date(LATEST_CLOCK_MS).getUTCFullYear()]).toEqual([0, 9999]);
    for (const accepted of codeSpans(meaning).filter((span) => span.startsWith('2025-') && !['2025-02-30', 'T24:00'].includes(span))) {
      expect(() => resolveOptions({ now: accepted })).not.toThrow();
    }
    expect(codeSpans(meaning)).toEqual(expect.arrayContaining(['2025-02-30', 'T24:00']));
    for (const refused of ['2025-02-30', '2025-06-01T24:00:00Z', '2025-06-01T09:30:00']) expect(() => resolveOptions({ now: refused })).toThrow();
  });

  it('takes credentials of 1 to 256 visible ASCII characters, the standard key other than the key', () => {
    const [, range = '', , meaning = ''] = rows.find(([option]) => option === '`credentials`') ?? [];
    const [min, max] = (/each (\d+)\.\.(\d+) visible ASCII characters/.exec(range) ?? []).slice(1).map(Number);
    expect(() => resolveOptions({ credentials: { key: 'k'.repeat(max ?? 0) } })).not.toThrow();
    for (const key of ['k'.repeat((max ?? 0) + 1), 'k'.repeat((min ?? 1) - 1), 'a b', 'é'])
      expect(() => resolveOptions({ credentials: { key } })).toThrow();
    expect(meaning).toContain('`standardKey` must differ from `key`');
    expect(() => resolveOptions({ credentials: { key: 'same', standardKey: 'same' } })).toThrow(RangeError);
  });

  it('lists the members of limits and account the sandbox takes', () => {
    const [, limits = ''] = rows.find(([option]) => option === '`limits`') ?? [];
    const [, account = ''] = rows.find(([option]) => option === '`account`') ?? [];
    const members = (cell: string) => [...(codeSpans(cell)[0] ?? '').matchAll(/(\w+)\?/g)].map((match) => match[1]);
    expect(members(limits).sort()).toEqual(Object.keys(resolveOptions({}).limits).sort());
    expect(members(account).sort()).toEqual(Object.keys(resolveOptions({}).account).sort());
    expect(account).toMatch(/, booleans$/);
    expect(() => resolveOptions({ account: { apiAccess: 1 } })).toThrow(TypeError);
  });
});

describe("the sandbox guide's table of limits", () => {
  const { rows } = findTable(['Limit', 'Range', 'Default', 'Over it']);
  const limits = resolveOptions({}).limits as unknown as Record<string, number>;

  it('has a row for every limit of the sandbox', () => {
    expect(rows.map(([limit = '']) => codeSpans(limit)[0]).sort()).toEqual(Object.keys(limits).sort());
  });

  it.each(rows.map(([limit = '', range = '', documented = '']) => [codeSpans(limit)[0] ?? '', range, documented]))(
    '%s is %s, default %s',
    (name, range, documented) => {
      const rule = ruleOf(range);
      expect(rule).toBeDefined();
      expect(NUMBER_RULES[`limits.${name}` as RuleName]).toEqual(expect.objectContaining(rule));
      const years = /\((\d+) years\)/.exec(range)?.[1];
      if (years) expect(rule?.max).toBe(Number(years) * 365 * 86_400_000);
      const value = Number(codeSpans(documented)[0]);
      expect(limits[name]).toBe(value);
      const mebibytes = /\((\d+) MiB\)/.exec(documented)?.[1];
      if (mebibytes) expect(value).toBe(Number(mebibytes) * 1024 * 1024);
      const hours = /\((\d+) h\b/.exec(documented)?.[1];
      if (hours) expect(value).toBe(Number(hours) * 3_600_000);
    },
  );

  const over = (name: string): string => rows.find(([limit]) => limit === `\`${name}\``)?.[3] ?? '';

  it('answers a body over maxBodyBytes as its row says', async () => {
    const [status, code, details] = [
      /\*\*(\d{3})\*\*/.exec(over('maxBodyBytes'))?.[1],
      codeSpans(over('maxBodyBytes'))[0],
      codeSpans(over('maxBodyBytes'))[1],
    ];
    const { sandbox, token } = await open();
    try {
      const answer = await call(sandbox, 'POST', '/api/v1.1/sms', { token, body: `"${'x'.repeat(limits['maxBodyBytes'] ?? 0)}"` });
      expect([answer.status, answer.body.error.code]).toEqual([Number(status), code]);
      expect(`details.validationErrors: ${JSON.stringify(answer.body.error.details.validationErrors)}`).toBe(details?.replace(/", "/g, '","'));
    } finally {
      await sandbox.close();
    }
  });

  it('answers a body nested deeper than maxJsonDepth as its row says', async () => {
    const row = over('maxJsonDepth');
    const { sandbox, token } = await open();
    try {
      const depth = limits['maxJsonDepth'] ?? 0;
      const answer = await call(sandbox, 'POST', '/api/v1.1/sms', { token, body: `${'['.repeat(depth + 1)}${']'.repeat(depth + 1)}` });
      expect([answer.status, answer.body.error.code]).toEqual([Number(/\*\*(\d{3})\*\*/.exec(row)?.[1]), codeSpans(row)[0]]);
      expect(answer.body.error.details.validationErrors).toEqual([/"([^"]+)"/.exec(row)?.[1]]);
    } finally {
      await sandbox.close();
    }
  });

  it('forgets an Idempotency-Key after idempotencyKeyTtlMs, and the oldest first past maxIdempotencyKeys', async () => {
    expect(over('idempotencyKeyTtlMs')).toBe('the key is forgotten: the same key runs the write again');
    expect(over('maxIdempotencyKeys')).toBe('the oldest key is forgotten first');
    const { sandbox, token } = await open({ limits: { idempotencyKeyTtlMs: 60_000, maxIdempotencyKeys: 2 } });
    const send = async (key: string) => {
      const answer = await call(sandbox, 'POST', '/api/v1.1/sms', {
        token,
        body: { fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+14155550100', text: key },
        headers: { 'idempotency-key': key },
      });
      return answer.headers.get('idempotency-replayed') === 'true';
    };
    try {
      expect([await send('a'), await send('a')]).toEqual([false, true]);
      sandbox.advanceTime(60_001);
      expect(await send('a')).toBe(false);
      expect([await send('b'), await send('c')]).toEqual([false, false]);
      // Three keys for room for two: the oldest, a, went first.
      expect([await send('c'), await send('b'), await send('a')]).toEqual([true, true, false]);
    } finally {
      await sandbox.close();
    }
  });
});
