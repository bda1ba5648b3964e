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

/** A unit at the end of a name (`timeout` for `timeoutMs`, `toleranceMs` for `toleranceSeconds`). */
const UNIT = /(?:ms|millis|milliseconds|sec|secs|seconds|bytes)$/;

/** Names other HTTP clients use for options of ours, too far from them by letters (normalised). */
const ALIASES: Readonly<Record<string, string>> = { apikey: 'key', url: 'baseurl', retry: 'maxretries' };

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `stauts` is one step
 * from `status`. Names are short, so the whole table is kept.
 */
function distance(a: string, b: string): number {
  const width = b.length + 1;
  // Edits from the first i characters of a to the first j of b, at i * width + j.
  const table: number[] = [];
  const at = (i: number, j: number): number => table[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) {
    for (let j = 0; j <= b.length; j++) {
      let edits = Math.max(i, j);
      if (i > 0 && j > 0) {
        edits = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) edits = Math.min(edits, at(i - 2, j - 2) + 1);
      }
      table.push(edits);
    }
  }
  return at(a.length, b.length);
}

/**
 * The known name `name` most likely meant, or undefined when none is near. In order: the same
 * name in another case or with `_`/`-` (`baseURL`, `idempotency_key`); the same name with another
 * or no unit (`timeout`, `pollInterval`); a name other libraries use (`apiKey`); the fewest
 * edits, compared with and without units, at most 40 % of the name's length (`maxRetry`,
 * `stauts`, `windw`), the first known name winning a tie; else the one known name that begins or
 * ends with the given one or is begun or ended by it, four letters at least (`fallback`,
 * `hostname`).
 */
function nearestName(name: string, known: readonly string[]): string | undefined {
  const given = normal(name);
  const stem = given.replace(UNIT, '');
  const alias = ALIASES[given];
  const normals = known.map(normal);
  const exact = normals.findIndex((candidate) => candidate === given || candidate === alias || (stem !== '' && candidate.replace(UNIT, '') === stem));
  if (exact !== -1) return known[exact];
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(given.length * 0.4)) + 1;
  normals.forEach((candidate, index) => {
    const steps = Math.min(distance(given, candidate), distance(stem, candidate.replace(UNIT, '')));
    if (steps < bestDistance) [best, bestDistance] = [known[index], steps];
  });
  if (best !== undefined) return best;
  const containing = known.filter((_, index) => overlaps(stem, (normals[index] as string).replace(UNIT, '')));
  return containing.length === 1 ? containing[0] : undefined;
}

/** One name is the start or the end of the other, and the shorter has four letters at least. */
function overlaps(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && (long.startsWith(short) || long.endsWith(short));
}
