/**
 * Inputs built to make a reading that is not linear in its input show, and the bound that tells
 * one from a linear reading: a linear one reads 1 MiB in milliseconds, a quadratic one takes
 * minutes, so a generous bound holds on a loaded machine and still separates the two.
 */
import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';

export const KIB = 1024;
export const MIB = 1024 * KIB;
/** What one input may take end to end, over loopback HTTP included. */
const BOUND_MS = 2_000;

/** `unit` repeated to `length` characters, the last repetition cut. */
export function fill(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/**
 * Text of `length` characters in shapes that make a pattern scan again from every position: a
 * run of what a repeated class takes, followed by what makes the match fail (or succeed late).
 * Each ends in `@`, so that what looks for URL user-info reads it to the end.
 */
export const TEXT_SHAPES: Readonly<Record<string, (length: number) => string>> = {
  'a run of letters': (n) => `${fill('a', n - 1)}@`,
  'letters and a colon without //': (n) => `${fill('a', n - 2)}:@`,
  'a:// over and over': (n) => `${fill('a://', n - 1)}@`,
  'a scheme and user-info that never reach an @': (n) => `x://${fill('a', n - 6)}/@`,
  'digits before ://': (n) => `${fill('1', n - 6)}://u@`,
  'a run of blanks': (n) => `${fill(' ', n - 1)}@`,
  'percent-escapes': (n) => `${fill('%61', n - 1)}@`,
  'braces without a close': (n) => `${fill('{', n - 1)}@`,
};

/**
 * The lengths each input is tried at, shorter first: where the reading runs in this process, a
 * quadratic one fails at 64 KiB in seconds rather than stalling the run for minutes at 1 MiB.
 */
export const LENGTHS: readonly number[] = [64 * KIB, MIB];

/** What `read` gives, once it is checked to have taken less than BOUND_MS; `what` names the input and its path. */
export async function withinBound<T>(what: string, read: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await read();
  const elapsedMs = Math.round(performance.now() - started);
  expect(elapsedMs, `${what} took ${elapsedMs} ms`).toBeLessThan(BOUND_MS);
  return result;
}
