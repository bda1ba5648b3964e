/**
 * One written grammar per sandbox option value, shared by `startSandbox()` / `createSandbox()` and
 * the `partner-sandbox` command, so a flag and its option accept exactly the same values and say
 * the same thing about a bad one. Each check returns what is wrong with a value, or undefined.
 */
import { LATEST_CLOCK_MS, MAX_TIME_SCALE } from './clock.js';
import { unknownOption, unknownOptionMessage } from '../shared/option-names.js';
import { MAX_TIMER_MS } from '../shared/timer.js';

/**
 * What is wrong with one value: `type` for the wrong kind of value (a TypeError), `range` for the
 * right kind out of range (a RangeError). `expected` completes "<option> must be …".
 */
export interface OptionProblem {
  kind: 'type' | 'range';
  expected: string;
}

/** A number option: an integer or any finite number, within [min, max] (or above min when `minExclusive`). */
export interface NumberRule {
  integer: boolean;
  min: number;
  max: number;
  minExclusive?: boolean;
}

const integer = (min: number, max: number): NumberRule => ({ integer: true, min, max });

/** Same ceiling as a forced rule's `delayMs`. */
export const MAX_HANG_MS = 600_000;

/** The number options of the sandbox and their ranges, by option path. */
export const NUMBER_RULES = {
  port: integer(0, 65_535),
  seed: integer(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  simCount: integer(20, 100_000),
  tokenTtlSeconds: integer(1, 1e11),
  rateLimitWindowMs: integer(1, 1e11),
  transactionDelayMs: integer(0, 1e11),
  timeScale: { integer: false, min: 0, max: MAX_TIME_SCALE, minExclusive: true },
  deliveryTimeoutMs: integer(1, MAX_TIMER_MS),
  now: integer(0, LATEST_CLOCK_MS),
  'limits.maxBodyBytes': integer(1, 2 ** 30),
  'limits.maxJsonDepth': integer(1, 10_000),
  'limits.idempotencyKeyTtlMs': integer(1, 10 * 365 * 86_400_000),
  'limits.maxIdempotencyKeys': integer(1, 10_000_000),
  'limits.maxDiscardBytes': integer(0, 2 ** 40),
  'limits.discardTimeoutMs': integer(0, MAX_TIMER_MS),
  'faults.rate': { integer: false, min: 0, max: 1 },
  'faults.latencyMs': integer(0, MAX_HANG_MS),
  'faults.throttleRetryAfterSeconds': integer(0, 86_400),
  'faults.hangMs': integer(0, MAX_HANG_MS),
  'faults.seed': integer(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
} as const satisfies Record<string, NumberRule>;

/** The default of each top-level number option: startSandbox's and the command line's, one table. */
export const NUMBER_DEFAULTS = {
  seed: 42,
  simCount: 300,
  tokenTtlSeconds: 3600,
  rateLimitWindowMs: 60_000,
  transactionDelayMs: 300,
  timeScale: 1,
  deliveryTimeoutMs: 10_000,
} as const satisfies Partial<Record<keyof typeof NUMBER_RULES, number>>;

/** A rule's range as the command line's help writes it: `1..1e11`, `> 0 and <= 1000000`. */
export function rangeText(rule: NumberRule): string {
  const max = rule.max >= 1e9 && rule.max % 1e9 === 0 ? rule.max.toExponential().replace('e+', 'e') : String(rule.max);
  return rule.minExclusive ? `> ${rule.min} and <= ${max}` : `${rule.min}..${max}`;
}

function expectedNumber(rule: NumberRule): string {
  if (rule.minExclusive) return `a number greater than ${rule.min} and at most ${rule.max}`;
  return `${rule.integer ? 'an integer' : 'a number'} from ${rule.min} to ${rule.max}`;
}

export function numberProblem(value: unknown, rule: NumberRule): OptionProblem | undefined {
  const expected = expectedNumber(rule);
  // NaN and ±Infinity are numbers to typeof; they are never a meaningful setting.
  if (typeof value !== 'number' || !Number.isFinite(value)) return { kind: 'type', expected };
  const below = rule.minExclusive ? value <= rule.min : value < rule.min;
  if ((rule.integer && !Number.isInteger(value)) || below || value > rule.max) return { kind: 'range', expected };
  return undefined;
}

const INTEGER = /^(?:0|[1-9]\d*)$/;
const SIGNED_INTEGER = /^-?(?:0|[1-9]\d*)$/;
const DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;
const SIGNED_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * A number written as text (a command-line flag, a page of a list's query, an id in a path): the
 * decimal digits JSON writes, nothing else. No '+', and '-' only before a negative number of a
 * rule that has them (never '-0'); no leading zero (`08` reads as octal to some tools); a fraction
 * (`0.5`, never `.5` or `1.`) only where the rule is not an integer; no blanks, exponent, hex,
 * `_` or `Infinity`. `Number()` would take '', ' 8 ', '+8', '0x10', '1e3' and '-0' alike.
 */
export function parseNumberText(text: string, rule: NumberRule): number | OptionProblem {
  const grammar = rule.integer ? (rule.min < 0 ? SIGNED_INTEGER : INTEGER) : rule.min < 0 ? SIGNED_DECIMAL : DECIMAL;
  const value = grammar.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(value) || Object.is(value, -0)) return { kind: 'type', expected: `${expectedNumber(rule)}, ${textRule(rule)}` };
  return numberProblem(value, rule) ?? value;
}

function textRule(rule: NumberRule): string {
  const digits = rule.integer ? 'in decimal digits' : 'in decimal digits with an optional fraction (0.5)';
  return rule.min < 0 ? `${digits}, '-' only before a negative one, no leading zero` : `${digits}, no sign or leading zero`;
}

export function booleanProblem(value: unknown): OptionProblem | undefined {
  return typeof value === 'boolean' ? undefined : { kind: 'type', expected: 'true or false' };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as an error message may show it (never used for credentials). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'bigint') return `the bigint ${value}n`;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : `the Date ${value.toISOString()}`;
  return `a value of type ${typeof value}`;
}

/** The error for a bad option value: `invalid sandbox option <path>: must be <expected> (got <value>)`. */
export function optionError(path: string, problem: OptionProblem, got: string): TypeError | RangeError {
  const message = `invalid sandbox option ${path}: must be ${problem.expected} (got ${got})`;
  return problem.kind === 'range' ? new RangeError(message) : new TypeError(message);
}

/**
 * The error for the first member of `value` not in `names`, as every options object of the
 * package words it: `unknown sandbox option <where><name>: did you mean <where><nearest>?`, or the
 * allowed names when none is near. `where` prefixes nested names (`limits.`).
 */
export function unknownKeysError(value: Record<string, unknown>, names: object, where: string): TypeError | undefined {
  const name = unknownOption(value, names);
  return name === undefined ? undefined : new TypeError(unknownOptionMessage('sandbox option', name, names, where));
}
