import type * as z from 'zod/mini';

/** What a length counts, by the kind of value a size check measured. */
const UNITS: Record<string, string> = { string: 'characters', array: 'items' };

/** The type zod names a value by: `null`, `array`, `nan`, a class's name, else `typeof`. */
function parsedType(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : 'number';
  if (typeof value !== 'object' || value === null) return value === null ? 'null' : typeof value;
  if (Array.isArray(value)) return 'array';
  const object = value as { constructor?: { name: string } };
  return Object.getPrototypeOf(value) !== Object.prototype && 'constructor' in object && object.constructor ? object.constructor.name : 'object';
}

/** A value as zod quotes it in a message: strings in double quotes, bigints with `n`. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : typeof value === 'bigint' ? `${value}n` : String(value);
}

/** A value zod names as its type would: `NaN` and `Infinity` by themselves. */
function typeName(type: string, input?: unknown): string {
  if (typeof input === 'number' && !Number.isFinite(input)) return String(input);
  return type === 'nan' ? 'NaN' : type;
}

/** A too_big or too_small message: `Too big: expected string to have <=3 characters`. */
function size(issue: z.core.$ZodRawIssue<z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall>, big: boolean): string {
  const bound = big ? (issue as z.core.$ZodIssueTooBig).maximum : (issue as z.core.$ZodIssueTooSmall).minimum;
  const adjective = issue.exact ? 'exactly ' : `${big ? '<' : '>'}${issue.inclusive ? '=' : ''}`;
  const origin = issue.origin ?? 'value';
  const unit = UNITS[origin];
  return `Too ${big ? 'big' : 'small'}: expected ${origin} to ${unit ? 'have' : 'be'} ${adjective}${bound.toString()}${unit ? ` ${unit}` : ''}`;
}

/**
 * The English messages of the SDK's own checks (`RequestValidationError`, `ResponseValidationError`
 * issues), the wording of zod's English locale for every issue the SDK's schemas can raise (their
 * types, literals and enums, lengths and bounds, patterns, unknown keys, unions). Passed
 * to the parse that explains a refusal, so that zod's global configuration is neither read nor
 * changed: an application's own zod setup and the SDK's messages stay apart.
 */
export const zodMessages: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${typeName(issue.expected)}, received ${typeName(parsedType(issue.input), issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `Invalid input: expected ${quoted(issue.values[0])}`
        : `Invalid option: expected one of ${issue.values.map(quoted).join('|')}`;
    case 'too_big':
      return size(issue, true);
    case 'too_small':
      return size(issue, false);
    case 'invalid_format':
      return issue.format === 'regex' ? `Invalid string: must match pattern ${String(issue.pattern)}` : `Invalid ${issue.format}`;
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.map(quoted).join(', ')}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown }).options;
      if (Array.isArray(options) && options.length > 0)
        return `Invalid discriminator value. Expected ${options.map((option) => `'${String(option)}'`).join(' | ')}`;
      return issue.inclusive === false ? 'Invalid input: more than one option matched' : 'Invalid input';
    }
    default:
      return 'Invalid input';
  }
};

/** The options of a parse whose issues the SDK reports: its own messages. */
export const PARSE_OPTIONS: z.core.ParseContext<z.core.$ZodIssue> = { error: zodMessages };
