/**
 * The command line of `partner-sandbox`, parsed into startSandbox's options with the options' own
 * grammar (option-grammar.ts), so a flag accepts exactly what its option accepts. A bad command
 * line is a {@link UsageError} naming the flag; nothing has started by then.
 */
import { bindRefusal, hostProblem, listenHost } from './bind.js';
import type { NumberRule, OptionProblem } from './option-grammar.js';
import { NUMBER_DEFAULTS, NUMBER_RULES, parseNumberText, rangeText } from './option-grammar.js';
import { allowedHostName, type StartSandboxOptions } from './options.js';

/** A command line the sandbox cannot start from; the command prints it on one line and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const DEFAULT_PORT = 4010;

/** A number flag's line of the help: what it sets, then its range and default from the option's own table. */
function numberLine(flag: string, placeholder: string, what: string, option: keyof typeof NUMBER_DEFAULTS): string {
  const rule: NumberRule = NUMBER_RULES[option];
  return helpLine(`--${flag} <${placeholder}>`, `${what}, ${rangeText(rule)} (default ${NUMBER_DEFAULTS[option]})`);
}

/** One entry of the help: the flag in a column of 27, its text wrapped under itself at 88 columns. */
function helpLine(flag: string, text: string): string {
  const indent = ' '.repeat(29);
  const lines: string[] = [];
  let line = `  ${flag.padEnd(27)}`;
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > 88 && line.trim() !== flag) {
      lines.push(line);
      line = indent + word;
    } else line += line.endsWith(' ') ? word : ` ${word}`;
  }
  lines.push(line);
  return lines.join('\n');
}

export const HELP = [
  'Usage: partner-sandbox [options]',
  '',
  helpLine('--port <n>', `port, ${rangeText(NUMBER_RULES.port)} (default ${DEFAULT_PORT}; 0 picks a free one)`),
  helpLine('--host <addr>', 'address to listen on (default 127.0.0.1); anything but loopback (localhost, 127.0.0.0/8, ::1) needs --expose'),
  helpLine('--expose', 'allow a --host off loopback (0.0.0.0, ::, a LAN address): the control API has no authentication'),
  helpLine('--allowed-host <name>', "a further Host name to answer to (repeatable); '.example.test' allows that domain and every name under it"),
  helpLine('--seed <n>', `data seed, an integer; same seed, same data (default ${NUMBER_DEFAULTS.seed})`),
  numberLine('sims', 'n', 'number of SIMs', 'simCount'),
  numberLine('token-ttl', 'seconds', 'access token lifetime', 'tokenTtlSeconds'),
  numberLine('rate-limit-window', 'ms', 'rate-limit window', 'rateLimitWindowMs'),
  helpLine('--no-rate-limit', 'turn rate limiting off'),
  numberLine('transaction-delay', 'ms', 'time per async transaction step', 'transactionDelayMs'),
  numberLine('time-scale', 'x', 'sandbox ms per real ms', 'timeScale'),
  numberLine('delivery-timeout', 'ms', 'real time a webhook receiver gets to answer', 'deliveryTimeoutMs'),
  helpLine('-h, --help', 'show this help'),
  '',
  'Flags take their value as --port 4010 or --port=4010; a negative one as --seed=-1.',
  "A number is decimal digits (0.5 for --time-scale), without '+' or a leading zero.",
].join('\n');

type NumberOptionName =
  'port' | 'seed' | 'simCount' | 'tokenTtlSeconds' | 'rateLimitWindowMs' | 'transactionDelayMs' | 'timeScale' | 'deliveryTimeoutMs';

type Flag =
  | { kind: 'number'; option: NumberOptionName }
  | { kind: 'host' }
  | { kind: 'allowed-host' }
  | { kind: 'switch'; set: (options: StartSandboxOptions) => void };

const FLAGS: Readonly<Record<string, Flag>> = {
  port: { kind: 'number', option: 'port' },
  host: { kind: 'host' },
  expose: { kind: 'switch', set: (options) => (options.exposeOnNetwork = true) },
  'allowed-host': { kind: 'allowed-host' },
  seed: { kind: 'number', option: 'seed' },
  sims: { kind: 'number', option: 'simCount' },
  'token-ttl': { kind: 'number', option: 'tokenTtlSeconds' },
  'rate-limit-window': { kind: 'number', option: 'rateLimitWindowMs' },
  'no-rate-limit': { kind: 'switch', set: (options) => (options.rateLimit = false) },
  'transaction-delay': { kind: 'number', option: 'transactionDelayMs' },
  'time-scale': { kind: 'number', option: 'timeScale' },
  'delivery-timeout': { kind: 'number', option: 'deliveryTimeoutMs' },
};

/** What the user typed, cut short for a one-line message. */
function shortened(raw: string): string {
  return raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
}

/** A flag's value as the user typed it, quoted and cut short (a flag carries no secret). */
function quoted(raw: string): string {
  return JSON.stringify(shortened(raw));
}

function problemMessage(flag: string, problem: OptionProblem, raw: string): string {
  return `--${flag} must be ${problem.expected} (got ${quoted(raw)})`;
}

function parseNumber(flag: string, raw: string, rule: NumberRule): number {
  const parsed = parseNumberText(raw, rule);
  if (typeof parsed !== 'number') throw new UsageError(problemMessage(flag, parsed, raw));
  return parsed;
}

/** What the command was asked to do: print its help, or start with these options. */
export type Command = { help: true } | { help: false; options: StartSandboxOptions };

/**
 * Parses `argv` (the arguments after the command's name). Every flag at most once but
 * `--allowed-host`, which adds a name each time; a value as the
 * next argument or after `=`; a value starting with `-` only after `=` (so `--port --seed 5` is a
 * missing value, not a port of "--seed").
 */
export function parseCommand(argv: readonly string[]): Command {
  const options: StartSandboxOptions = { port: DEFAULT_PORT };
  const seen = new Set<string>();
  let help = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (arg === '--') {
      const extra = argv[i + 1];
      if (extra !== undefined) throw new UsageError(`unexpected argument ${quoted(extra)} (the command takes flags only)`);
      break;
    }
    if (!arg.startsWith('--') || arg.length === 2) {
      throw new UsageError(arg.startsWith('-') ? `unknown flag ${quoted(arg)}` : `unexpected argument ${quoted(arg)} (the command takes flags only)`);
    }
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    const flag = Object.hasOwn(FLAGS, name) ? FLAGS[name] : undefined;
    if (flag === undefined) throw new UsageError(`unknown flag --${shortened(name)}`);
    if (seen.has(name) && flag.kind !== 'allowed-host') throw new UsageError(`--${name} is given more than once`);
    seen.add(name);
    if (flag.kind === 'switch') {
      if (equals !== -1) throw new UsageError(`--${name} takes no value (got ${quoted(arg.slice(equals + 1))})`);
      flag.set(options);
      continue;
    }
    let raw: string;
    if (equals !== -1) raw = arg.slice(equals + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) {
        const hint = next !== undefined && !next.startsWith('--') && next !== '-h' ? ` (write a value starting with '-' as --${name}=${next})` : '';
        throw new UsageError(`--${name} needs a value${hint}`);
      }
      raw = next;
      i += 1;
    }
    if (flag.kind === 'host') {
      const problem = hostProblem(raw);
      if (problem) throw new UsageError(problemMessage(name, problem, raw));
      options.host = listenHost(raw);
    } else if (flag.kind === 'allowed-host') {
      const allowed = allowedHostName(raw);
      if (allowed === null) throw new UsageError(`--${name} must be a host name such as dev.example.test or .example.test (got ${quoted(raw)})`);
      options.allowedHosts = [...(options.allowedHosts ?? []), allowed];
    } else {
      options[flag.option] = parseNumber(name, raw, NUMBER_RULES[flag.option]);
    }
  }
  if (help) return { help: true };
  const refusal = bindRefusal(options.host ?? '127.0.0.1', options.exposeOnNetwork === true);
  if (refusal) throw new UsageError(`--host ${refusal}; add --expose to listen there anyway`);
  return { help: false, options };
}
