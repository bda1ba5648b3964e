/** Options of createSandbox / startSandbox, and their resolved form. */
import { bindRefusal, hostProblem, listenHost } from './bind.js';
import { parseIsoTimestamp } from '../shared/iso-8601.js';
import { normalizeHostName } from './host-names.js';
import type { NumberRule, OptionProblem } from './option-grammar.js';
import { booleanProblem, describe, isRecord, NUMBER_RULES, numberProblem, optionError, unknownKeysError } from './option-grammar.js';
import type { OptionNames } from '../shared/option-names.js';

export { MAX_HANG_MS } from './option-grammar.js';

/**
 * Seeded fault injection on partner-API routes (never on /_sandbox/). Every rate is a share of
 * requests, 0..1. `resetRate` and `errorRate` are rolled first, each on its own die; the shapes
 * after them share one die, so their rates add up to at most 1 and each is exactly its share of
 * the requests that got past the first two.
 */
export interface SandboxFaults {
  /** Share of partner-API requests answered 500 INTERNAL_ERROR (0..1). */
  errorRate?: number;
  /** Added to every partner-API answer, in real milliseconds; a number or [min, max]. */
  latencyMs?: number | [number, number];
  /** Share of partner-API requests whose socket is destroyed before the route runs (0..1). */
  resetRate?: number;
  /**
   * Share whose route runs (the write is applied, its idempotency entry stored) and whose socket
   * is then destroyed instead of the answer: the client cannot tell it from `resetRate`.
   */
  resetAfterRate?: number;
  /** Share answered 503 INTERNAL_ERROR (an envelope without `details`). */
  unavailableRate?: number;
  /** Share answered by an HTML 502 page, as a gateway in front of the API would. */
  gatewayRate?: number;
  /** Share answered 429 RATE_LIMITED with `Retry-After: throttleRetryAfterSeconds`, whatever the real windows say. */
  throttleRate?: number;
  /** Retry-After of an injected 429, in seconds. Default 1. */
  throttleRetryAfterSeconds?: number;
  /** Share that gets no answer for `hangMs` real milliseconds; then the route runs and answers late. */
  hangRate?: number;
  /** How long a hang lasts, in real milliseconds; close() ends every hang at once. Default 30000, at most 600000. */
  hangMs?: number;
  /** Seed of the fault dice; defaults to the sandbox seed. */
  seed?: number;
}

/** The faults of a sandbox after validation: every rate present, latency as a range. */
export interface ResolvedFaults {
  errorRate: number;
  resetRate: number;
  resetAfterRate: number;
  unavailableRate: number;
  gatewayRate: number;
  throttleRate: number;
  throttleRetryAfterSeconds: number;
  hangRate: number;
  hangMs: number;
  latencyMs: [number, number];
  seed: number;
}

const DEFAULT_HANG_MS = 30_000;

/** The key pairs a sandbox accepts; derived from the seed unless fixed in {@link SandboxOptions.credentials}. */
export interface SandboxCredentials {
  /** Admin-tier key. */
  key: string;
  /** Admin-tier secret. */
  secret: string;
  /** Non-admin key: POST /api/v1.1/sms and POST /api/v3/port-in answer 403. */
  standardKey: string;
  /** Non-admin secret. */
  standardSecret: string;
}

/**
 * Caps of the sandbox, in one place (STYLE: limits are data). The spec shows no body size limit
 * (part 8: "not shown"); these are the sandbox's own, documented in docs/sandbox-reference.md.
 */
export interface SandboxLimits {
  /** Largest request body read, in bytes; a bigger one answers 413 unread. Default 1 MiB. */
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects in a JSON body; deeper answers 400. Default 64. */
  maxJsonDepth: number;
  /** Lifetime of an Idempotency-Key on the sandbox clock. Default 24 h. */
  idempotencyKeyTtlMs: number;
  /** Most Idempotency-Keys kept at once; the oldest is evicted first. Default 10000. */
  maxIdempotencyKeys: number;
  /**
   * Most bytes of a refused body (413, or 401 before reading) read and thrown away after the
   * answer, so the sender can read it before the connection closes. Default 64 MiB.
   */
  maxDiscardBytes: number;
  /** Longest time, in real ms, spent reading and throwing away a refused body. Default 10000. */
  discardTimeoutMs: number;
}

const DEFAULT_LIMITS: Readonly<SandboxLimits> = {
  maxBodyBytes: 1_048_576,
  maxJsonDepth: 64,
  idempotencyKeyTtlMs: 24 * 60 * 60 * 1000,
  maxIdempotencyKeys: 10_000,
  maxDiscardBytes: 64 * 1024 * 1024,
  discardTimeoutMs: 10_000,
};

/**
 * Seedable states of the account (not forced answers: they hold until changed).
 * Changed at run time with POST /_sandbox/account.
 */
export interface SandboxAccount {
  /** false: the account's plan lacks API access, so every authenticated call answers 403 FORBIDDEN (spec part 5 rule 6). Default true. */
  apiAccess: boolean;
  /** true: the billing customer is missing, so GET /credit-balance answers 404 NOT_FOUND (spec part 4). Default false. */
  customerMissing: boolean;
}

const DEFAULT_ACCOUNT: Readonly<SandboxAccount> = { apiAccess: true, customerMissing: false };

/** Options of {@link createSandbox} and {@link startSandbox}: the seed, the clock, limits and faults. */
export interface SandboxOptions {
  /** Same seed → same ICCIDs, numbers, members, plans, credentials. Default 42. */
  seed?: number;
  /** Number of SIMs on the account. Default 300. */
  simCount?: number;
  /** Access token lifetime. Default 3600. */
  tokenTtlSeconds?: number;
  /** Length of every rate-limit window (spec part 8 says 60 s). Default 60000. */
  rateLimitWindowMs?: number;
  /** false turns rate limiting off. Default true. */
  rateLimit?: boolean;
  /** Sandbox time each async transaction step takes (PENDING → PROCESSING → terminal). Default 300. */
  transactionDelayMs?: number;
  /** Sandbox milliseconds per real millisecond. Default 1. */
  timeScale?: number;
  /**
   * Real milliseconds a receiver gets to answer one webhook delivery attempt, or to accept a voice
   * stream connection, before the attempt counts as failed. Default 10000 (spec part 6 and 8).
   * Unlike retry delays it does not follow the sandbox clock: a receiver answers in real time, so
   * at timeScale 2000 a scaled 10 s would be 5 ms and every attempt would time out.
   */
  deliveryTimeoutMs?: number;
  /** Start time of the sandbox clock. Default: the real time at creation. */
  now?: Date | string | number;
  /** Fault injection for soak tests; off by default. */
  faults?: SandboxFaults;
  /** Fixed credentials instead of the ones derived from the seed. */
  credentials?: Partial<SandboxCredentials>;
  /** Body size, JSON depth and idempotency-key caps; each member defaults as in DEFAULT_LIMITS. */
  limits?: Partial<SandboxLimits>;
  /** Initial account state; each member defaults as in DEFAULT_ACCOUNT. POST /_sandbox/reset restores it. */
  account?: Partial<SandboxAccount>;
}

/** Options of {@link startSandbox}: the sandbox's, and where to listen. */
export interface StartSandboxOptions extends SandboxOptions {
  /** The port, an integer from 0 to 65535; 0 (default) picks a free port. */
  port?: number;
  /**
   * The address: an IP address or a host name. Default 127.0.0.1. Anything but loopback
   * (`localhost`, 127.0.0.0/8, `::1`) is refused unless `exposeOnNetwork` is true.
   */
  host?: string;
  /**
   * true lets the sandbox listen on a `host` that is not loopback (`0.0.0.0`, `::`, a LAN address,
   * a host name), for a sandbox in a container or on another machine. Its control API and
   * inspector have no authentication, so starting it this way emits a `SandboxExposedWarning`
   * process warning naming every URL it answers on. Default false.
   */
  exposeOnNetwork?: boolean;
  /**
   * Host names, besides loopback and `host`, that requests may name in their `Host` header
   * (`'dev.example.test'`, or `'.example.test'` for every name under it). Default none.
   */
  allowedHosts?: readonly string[];
}

/** Where {@link startSandbox} listens, after validation. */
export interface ListenOptions {
  port: number;
  /** As `listen()` takes it: an IPv6 address without brackets. */
  host: string;
  exposeOnNetwork: boolean;
  allowedHosts: string[];
}

export interface ResolvedSandboxOptions {
  seed: number;
  simCount: number;
  tokenTtlSeconds: number;
  rateLimitWindowMs: number;
  rateLimit: boolean;
  transactionDelayMs: number;
  timeScale: number;
  deliveryTimeoutMs: number;
  startMs: number;
  limits: SandboxLimits;
  account: SandboxAccount;
  faults: ResolvedFaults | null;
}

/**
 * One entry of `allowedHosts` (or of `--allowed-host`) as the Host check compares it: a host name
 * without scheme, port or path, normalized (lower case, no trailing dot), a leading dot kept (the
 * domain and every name under it); null when it is not one. Written as given: no trimming.
 */
export function allowedHostName(entry: string): string | null {
  const suffix = entry.startsWith('.');
  const name = normalizeHostName(suffix ? entry.slice(1) : entry);
  if (name === null || name.startsWith('.')) return null;
  return suffix ? `.${name}` : name;
}

/** `allowedHosts` checked: each entry a host name (see {@link allowedHostName}). */
function resolveAllowedHosts(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError('invalid sandbox option allowedHosts: must be an array of host names');
  return value.map((entry: unknown, index) => {
    const name = typeof entry === 'string' ? allowedHostName(entry) : null;
    if (name === null) {
      throw new TypeError(
        `invalid sandbox option allowedHosts[${index}]: must be a host name such as 'dev.example.test' or '.example.test' (no scheme, port, path or blanks) (got ${typeof entry === 'string' ? JSON.stringify(entry.slice(0, 80)) : typeof entry})`,
      );
    }
    return name;
  });
}
const SANDBOX_OPTION_NAMES = {
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
} as const satisfies OptionNames<SandboxOptions>;
const START_OPTION_NAMES = {
  ...SANDBOX_OPTION_NAMES,
  port: true,
  host: true,
  exposeOnNetwork: true,
  allowedHosts: true,
} as const satisfies OptionNames<StartSandboxOptions>;

/** Refuses an object with any member not in `names`; `path` names a nested object (`limits`). */
function closedRecord(value: unknown, path: string, names: object): Record<string, unknown> {
  if (!isRecord(value)) throw new TypeError(`invalid sandbox option${path ? ` ${path}` : 's'}: must be an object (got ${describe(value)})`);
  const unknown = unknownKeysError(value, names, path ? `${path}.` : '');
  if (unknown) throw unknown;
  return value;
}

function check(path: string, value: unknown, problem: (value: unknown) => OptionProblem | undefined): void {
  const found = problem(value);
  if (found) throw optionError(path, found, describe(value));
}

/** A number option: its default when undefined, else the value within its rule. */
function numberOption(path: string, value: unknown, rule: NumberRule, fallback: number): number {
  if (value === undefined) return fallback;
  check(path, value, (v) => numberProblem(v, rule));
  return value as number;
}

function booleanOption(path: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  check(path, value, booleanProblem);
  return value as boolean;
}

/**
 * A date alone or a date-time with its zone (without one it would be read as the machine's local
 * time), a date the calendar has: src/shared/iso-8601.ts.
 */
const NOW_EXPECTED =
  'a Date, an ISO 8601 string (2025-06-01 or 2025-06-01T09:30:00Z, a day the month has) or epoch milliseconds, between 1970 and 9999';

function resolveNow(value: unknown): number {
  if (value === undefined) return Date.now();
  let ms: number;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'string') ms = parseIsoTimestamp(value, true) ?? Number.NaN;
  else if (typeof value === 'number') ms = value;
  else throw optionError('now', { kind: 'type', expected: NOW_EXPECTED }, describe(value));
  if (numberProblem(ms, NUMBER_RULES.now)) throw optionError('now', { kind: 'range', expected: NOW_EXPECTED }, describe(value));
  return ms;
}

const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as Array<keyof SandboxLimits>;

/** Every limit an integer in its range (option-grammar.ts), or its default. */
function resolveLimits(value: unknown): SandboxLimits {
  if (value === undefined) return { ...DEFAULT_LIMITS };
  const limits = closedRecord(value, 'limits', DEFAULT_LIMITS);
  const resolved = { ...DEFAULT_LIMITS };
  for (const name of LIMIT_NAMES) {
    resolved[name] = numberOption(`limits.${name}`, limits[name], NUMBER_RULES[`limits.${name}`], DEFAULT_LIMITS[name]);
  }
  return resolved;
}

function resolveAccount(value: unknown): SandboxAccount {
  if (value === undefined) return { ...DEFAULT_ACCOUNT };
  const account = closedRecord(value, 'account', DEFAULT_ACCOUNT);
  return {
    apiAccess: booleanOption('account.apiAccess', account['apiAccess'], DEFAULT_ACCOUNT.apiAccess),
    customerMissing: booleanOption('account.customerMissing', account['customerMissing'], DEFAULT_ACCOUNT.customerMissing),
  };
}

const CREDENTIAL_OPTION_NAMES = {
  key: true,
  secret: true,
  standardKey: true,
  standardSecret: true,
} as const satisfies OptionNames<SandboxCredentials>;
const CREDENTIAL_NAMES = Object.keys(CREDENTIAL_OPTION_NAMES) as Array<keyof SandboxCredentials>;
/** Visible ASCII: a credential goes into JSON bodies and the command's banner as it is. */
const CREDENTIAL = /^[\x21-\x7e]{1,256}$/;

/**
 * Checks fixed credentials (createSandbox reads them once they pass); a value is never quoted in
 * an error, as it may be a real secret pasted by mistake.
 */
function checkCredentials(value: unknown): void {
  if (value === undefined) return;
  const credentials = closedRecord(value, 'credentials', CREDENTIAL_OPTION_NAMES);
  for (const name of CREDENTIAL_NAMES) {
    const item = credentials[name];
    if (item === undefined) continue;
    if (typeof item !== 'string') {
      throw new TypeError(
        `invalid sandbox option credentials.${name}: must be a string (got a value of type ${item === null ? 'null' : typeof item})`,
      );
    }
    if (!CREDENTIAL.test(item)) {
      throw new RangeError(
        `invalid sandbox option credentials.${name}: must be 1 to 256 visible ASCII characters, without spaces or control characters`,
      );
    }
  }
  // The key decides the tier of a token exchange (spec part 5 rule 5): one key cannot be both.
  if (credentials['key'] !== undefined && credentials['key'] === credentials['standardKey']) {
    throw new RangeError('invalid sandbox option credentials.standardKey: must differ from credentials.key (the key decides the tier)');
  }
}

/** The options of createSandbox (those of startSandbox's listening are refused here: createSandbox opens no socket). */
export function resolveOptions(input: unknown = {}): ResolvedSandboxOptions {
  const options = closedRecord(input, '', SANDBOX_OPTION_NAMES);
  const seed = numberOption('seed', options['seed'], NUMBER_RULES.seed, 42);
  checkCredentials(options['credentials']);
  return {
    seed,
    simCount: numberOption('simCount', options['simCount'], NUMBER_RULES.simCount, 300),
    tokenTtlSeconds: numberOption('tokenTtlSeconds', options['tokenTtlSeconds'], NUMBER_RULES.tokenTtlSeconds, 3600),
    rateLimitWindowMs: numberOption('rateLimitWindowMs', options['rateLimitWindowMs'], NUMBER_RULES.rateLimitWindowMs, 60_000),
    rateLimit: booleanOption('rateLimit', options['rateLimit'], true),
    transactionDelayMs: numberOption('transactionDelayMs', options['transactionDelayMs'], NUMBER_RULES.transactionDelayMs, 300),
    timeScale: numberOption('timeScale', options['timeScale'], NUMBER_RULES.timeScale, 1),
    deliveryTimeoutMs: numberOption('deliveryTimeoutMs', options['deliveryTimeoutMs'], NUMBER_RULES.deliveryTimeoutMs, 10_000),
    startMs: resolveNow(options['now']),
    limits: resolveLimits(options['limits']),
    account: resolveAccount(options['account']),
    faults: options['faults'] === undefined ? null : resolveFaults(options['faults'], seed),
  };
}

/**
 * Splits startSandbox's options into where to listen (checked here, the bind rule included, so a
 * refused host never reaches `listen()`) and the sandbox's own options, checked by createSandbox.
 */
export function resolveListenOptions(input: unknown = {}): { listen: ListenOptions; sandbox: Record<string, unknown> } {
  const options = closedRecord(input, '', START_OPTION_NAMES);
  const { port, host, exposeOnNetwork, allowedHosts, ...sandbox } = options;
  const resolvedPort = numberOption('port', port, NUMBER_RULES.port, 0);
  if (host !== undefined) check('host', host, hostProblem);
  const listen = {
    port: resolvedPort,
    host: listenHost((host as string | undefined) ?? '127.0.0.1'),
    exposeOnNetwork: booleanOption('exposeOnNetwork', exposeOnNetwork, false),
    allowedHosts: resolveAllowedHosts(allowedHosts),
  };
  const refusal = bindRefusal(listen.host, listen.exposeOnNetwork);
  if (refusal) throw new RangeError(`invalid sandbox option host: ${refusal}; pass exposeOnNetwork: true to listen there anyway`);
  return { listen, sandbox };
}

const RATE_NAMES = ['errorRate', 'resetRate', 'resetAfterRate', 'unavailableRate', 'gatewayRate', 'throttleRate', 'hangRate'] as const;
const FAULT_NAMES = {
  ...(Object.fromEntries(RATE_NAMES.map((name) => [name, true])) as Record<(typeof RATE_NAMES)[number], true>),
  latencyMs: true,
  throttleRetryAfterSeconds: true,
  hangMs: true,
  seed: true,
} as const satisfies OptionNames<SandboxFaults>;

function resolveLatency(value: unknown): [number, number] {
  if (value === undefined) return [0, 0];
  const rule = NUMBER_RULES['faults.latencyMs'];
  if (!Array.isArray(value)) {
    const ms = numberOption('faults.latencyMs', value, rule, 0);
    return [ms, ms];
  }
  if (value.length !== 2) {
    throw new TypeError(`invalid sandbox option faults.latencyMs: must be a number of ms or a [min, max] pair (got an array of ${value.length})`);
  }
  const lo = numberOption('faults.latencyMs[0]', value[0], rule, 0);
  const hi = numberOption('faults.latencyMs[1]', value[1], rule, 0);
  if (hi < lo) throw new RangeError(`invalid sandbox option faults.latencyMs: max must be at least min (got [${lo}, ${hi}])`);
  return [lo, hi];
}

function resolveFaults(value: unknown, sandboxSeed: number): ResolvedFaults {
  const input = closedRecord(value, 'faults', FAULT_NAMES);
  const rates = Object.fromEntries(
    RATE_NAMES.map((name) => [name, numberOption(`faults.${name}`, input[name], NUMBER_RULES['faults.rate'], 0)]),
  ) as Record<(typeof RATE_NAMES)[number], number>;
  // These shapes share one die (middleware/force.ts), so together they cannot exceed every request.
  const shared = rates.resetAfterRate + rates.unavailableRate + rates.gatewayRate + rates.throttleRate + rates.hangRate;
  if (shared > 1 + 1e-9) {
    throw new RangeError(
      `invalid sandbox option faults: resetAfterRate + unavailableRate + gatewayRate + throttleRate + hangRate must be at most 1 (got ${shared})`,
    );
  }
  return {
    ...rates,
    throttleRetryAfterSeconds: numberOption(
      'faults.throttleRetryAfterSeconds',
      input['throttleRetryAfterSeconds'],
      NUMBER_RULES['faults.throttleRetryAfterSeconds'],
      1,
    ),
    hangMs: numberOption('faults.hangMs', input['hangMs'], NUMBER_RULES['faults.hangMs'], DEFAULT_HANG_MS),
    latencyMs: resolveLatency(input['latencyMs']),
    seed: numberOption('faults.seed', input['seed'], NUMBER_RULES['faults.seed'], sandboxSeed),
  };
}
