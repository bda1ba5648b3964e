/**
 * Unknown members of an options object, refused with the nearest known name: what TypeScript's
 * checker tells a typed caller, told at run time to JavaScript callers and to options read from
 * JSON. Shared by the client, the receiving side and the sandbox, so every options object says
 * the same thing in the same words. Imports nothing.
 */

/**
 * The names an options object takes, as a table written `{ name: true, … } satisfies
 * OptionNames<XOptions>` (or one holding a check per option, `OptionNames<XOptions, Check>`):
 * the compiler refuses the table when the interface gains, loses or renames a member, so the
 * names checked at run time are the interface's.
 */
export type OptionNames<T, V = true> = { readonly [K in keyof T]-?: V };

/**
 * The first own enumerable member of `options` that `names` does not have, or undefined. Only the
 * names are read, never the values: `undefined` under a known name is that option's default,
 * members of the prototype are not options, and a nested map (`headers`) is not walked.
 */
export function unknownOption(options: object, names: object): string | undefined {
  for (const name in options) if (!Object.hasOwn(names, name) && Object.hasOwn(options, name)) return name;
  return undefined;
}

/**
 * `unknown <kind> <path><name>: did you mean <path><nearest>?`, or, with no name near,
 * `unknown <kind> <path><name> (allowed: …)`. `kind` says what the member is (`client option`,
 * `query parameter`); `path` prefixes nested options (`limits.`).
 */
export function unknownOptionMessage(kind: string, name: string, names: object, path = ''): string {
  const known = Object.keys(names);
  const nearest = nearestName(name, known);
  return nearest === undefined
    ? `unknown ${kind} ${path}${name} (allowed: ${known.join(', ')})`
    : `unknown ${kind} ${path}${name}: did you mean ${path}${nearest}?`;
}

/** Case, `_` and `-` do not tell names apart: `baseURL`, `base_url` and `baseUrl` are one name. */
function normal(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

/** The known name that `name` spells another way (`page_size`, `pagesize` for `pageSize`), or undefined. */
export function respelledName(name: string, known: readonly string[]): string | undefined {
  const given = normal(name);
  return known.find((candidate) => candidate !== name && normal(candidate) === given);
}

/** Names other HTTP clients use for options of ours, too far from them by letters (normalised). */
const ALIASES: Readonly<Record<string, string>> = { apikey: 'key', url: 'baseurl', retry: 'maxretries' };

/** A name without its unit (`timeoutMs` and `timeoutSeconds` are both `timeout`), case, `_` and `-`. */
function stem(name: string): string {
  const normalised = normal(name);
  return (ALIASES[normalised] ?? normalised).replace(/(?:ms|millis|milliseconds|sec|secs|seconds|bytes)$/, '');
}

/** Edits between two names, adjacent transpositions counted as one (optimal string alignment). */
function distance(a: string, b: string): number {
  // rows[i][j]: edits from the first i characters of a to the first j of b.
  const rows = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const above = rows[i - 1] as number[];
      let edits = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) edits = Math.min(edits, (rows[i - 2]?.[j - 2] as number) + 1);
      row.push(edits);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] as number;
}

/**
 * The known name `name` most likely meant, or undefined when none is near. Names are compared
 * without case, `_`, `-` or unit (`baseURL`, `idempotency_key`, `timeout`), a name other clients
 * use standing for ours (`apiKey`): the fewest edits wins, at most 40 % of the name's length
 * (`maxRetry`, `stauts`), the first known name winning a tie. Failing that, the one known name
 * that begins or ends with the given one, or is begun or ended by it, four letters at least
 * (`fallback`, `hostname`).
 */
function nearestName(name: string, known: readonly string[]): string | undefined {
  const given = stem(name);
  const stems = known.map(stem);
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(normal(name).length * 0.4)) + 1;
  stems.forEach((candidate, index) => {
    const edits = distance(given, candidate);
    if (edits < bestDistance) [best, bestDistance] = [known[index], edits];
  });
  const overlapping = known.filter((_, index) => {
    const [short, long] = [given, stems[index] as string].sort((a, b) => a.length - b.length) as [string, string];
    return short.length >= 4 && (long.startsWith(short) || long.endsWith(short));
  });
  return best ?? (overlapping.length === 1 ? overlapping[0] : undefined);
}
