/**
 * The grammar of an integer option (a size, a count, a port), shared by the client's options
 * (core/config.ts) and the webhook side's (a receiver's `maxBodyBytes`, a store's `maxEntries`).
 * Imports nothing, so the webhooks entry reads it without loading the client.
 */

/** A value as an error message may show it (never used for credentials). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'bigint') return `the bigint ${value}n`;
  if (typeof value === 'number') return String(value);
  return `a value of type ${typeof value}`;
}

/** What is wrong with `value` as an integer from `min` to `max` (a number, never a string), or undefined. */
export function integerProblem(value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return `must be an integer from ${min} to ${max} (got ${describeValue(value)})`;
  }
  return undefined;
}

/** A size or a count: a positive safe integer (`maxResponseBytes`, a webhook receiver's `maxBodyBytes` …). */
export function positiveIntegerProblem(value: unknown): string | undefined {
  return integerProblem(value, 1, Number.MAX_SAFE_INTEGER);
}
