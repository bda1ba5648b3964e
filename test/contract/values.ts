/**
 * Values fed to both sides of the contract, by the kind of field the spec describes: valid ones,
 * the boundaries of each rule, and invalid ones (wrong types, lengths, enums, formats, nesting).
 * Each kind has fixed values (always tried) and a fast-check arbitrary (sampled from the seed).
 */
import fc from 'fast-check';

export type Kind =
  | { type: 'string' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'int'; min: number; max?: number }
  | { type: 'email' }
  | { type: 'e164' }
  | { type: 'boolean' }
  | { type: 'url'; schemes: readonly string[] }
  | { type: 'json' }
  | { type: 'authentication' }
  | { type: 'object' }
  | { type: 'id' };

/** Values of every kind's wrong types and shapes. */
const WRONG_TYPES: unknown[] = [undefined, null, true, 0, 1.5, NaN, '', ' ', [], {}, ['x']];

const LETTERS = fc.constantFrom(...'abcXYZéüßøçñжыйлαβγδ中文字日本語한국어אבגعربيहिन्दी'.split(''));
const word = (min: number, max: number) => fc.string({ unit: LETTERS, minLength: min, maxLength: max });

/** A string of `octets` UTF-8 octets, made of `unit` (an ASCII letter: one octet; 'ü': two). */
const ofOctets = (octets: number, unit = 'a'): string => unit.repeat(Math.floor(octets / new TextEncoder().encode(unit).length));

function emailValues(): unknown[] {
  const label63 = 'a'.repeat(63);
  const domainTo = (octets: number): string => {
    // labels of 63 joined by dots, then a last label to reach exactly `octets`, ending in ".com".
    let domain = 'com';
    while (domain.length + 64 <= octets) domain = `${label63}.${domain}`;
    const rest = octets - domain.length - 1;
    return rest > 0 ? `${'b'.repeat(rest)}.${domain}` : domain;
  };
  return [
    'user@example.com',
    'first.last+tag@sub.example.co',
    "o'brien_x-y@example.org",
    'jürgen@example.de',
    'user@münchen.example',
    'jürgen@münchen.example',
    '用户@例子.广告',
    'почта@пример.рф',
    'उपयोगकर्ता@उदाहरण.भारत',
    'user@xn--mnchen-3ya.example',
    'USER@EXAMPLE.COM',
    `${ofOctets(64)}@example.com`,
    `${ofOctets(65)}@example.com`,
    `${ofOctets(64, 'ü')}@example.com`,
    `${ofOctets(66, 'ü')}@example.com`,
    `x@${label63}.com`,
    `x@${'a'.repeat(64)}.com`,
    `x@${ofOctets(62, 'ü')}.com`,
    `x@${ofOctets(64, 'ü')}.com`,
    `${ofOctets(64)}@${domainTo(189)}`,
    `${ofOctets(64)}@${domainTo(190)}`,
    'plain',
    '@example.com',
    'user@',
    'user@@example.com',
    'a@b@example.com',
    'user@example',
    'user@localhost',
    'user@example.123',
    'user@123.example',
    'user@-example.com',
    'user@example-.com',
    'user@exa_mple.com',
    'user@example..com',
    'user@.example.com',
    'user@example.com.',
    '.user@example.com',
    'user.@example.com',
    'us..er@example.com',
    'us er@example.com',
    ' user@example.com',
    'user@example.com ',
    'user@example.com\n',
    'us\u0000er@example.com',
    'us\u00a0er@example.com',
    'us\u3000er@example.com',
    'user@exam\u200bple.com',
    'us\ud800er@example.com',
    'user@[127.0.0.1]',
    '"quoted"@example.com',
    'a(b)@example.com',
    'a<b>@example.com',
    'a,b@example.com',
    'a;b@example.com',
    'a:b@example.com',
    'a\\b@example.com',
    "!#$%&'*+-/=?^_`{|}~@example.com",
    'user@例子',
    'user@example.c',
    'user@xn--.com',
  ];
}

const emailArb = fc.oneof(
  fc.emailAddress(),
  fc.tuple(word(1, 12), word(1, 10), word(2, 6)).map(([local, domain, tld]) => `${local}@${domain}.${tld}`),
  fc
    .tuple(word(1, 8), fc.constantFrom(' ', '\t', '@', '..', '.', '-', '_', '"', '\u0000', '\u200b', '\ud800'), word(1, 8))
    .map(([a, glue, b]) => `${a}${glue}${b}@example.com`),
  fc.tuple(word(1, 8), word(1, 8), fc.constantFrom('-', '_', '.', '..', ' ', '1')).map(([a, b, glue]) => `x@${a}${glue}${b}.com`),
  fc.string(),
);

function e164Values(): unknown[] {
  return [
    '+14155550100',
    '+6141234567',
    '+1234567',
    '+123456',
    '+123456789012345',
    '+1234567890123456',
    '+04155550100',
    '14155550100',
    '+1 415 555 0100',
    '+1-415-555-0100',
    ' +14155550100',
    '+14155550100 ',
    '+１４１５５５５０１００',
    '+١٤١٥٥٥٥٠١٠٠',
    '+14155550100\n',
    '++14155550100',
    '+',
    14155550100,
  ];
}

const e164Arb = fc.oneof(
  fc
    .integer({ min: 0, max: 20 })
    .chain((n) => fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: n, maxLength: n }))
    .map((d) => `+${d}`),
  fc.string({ unit: fc.constantFrom(...'+0123456789 -()'.split('')), maxLength: 18 }),
);

function urlValues(schemes: readonly string[]): unknown[] {
  const values: unknown[] = [];
  for (const scheme of ['http', 'https', 'ws', 'wss', 'ftp']) {
    values.push(`${scheme}://example.com/hook`, `${scheme.toUpperCase()}://example.com/hook`);
  }
  values.push(
    'http://127.0.0.1:8080/path?query=1#frag',
    'https://münchen.example/hook',
    'https://example.com/ü/path',
    'http:example.com',
    'http:/example.com',
    'http:\\\\example.com',
    'http://',
    'http://exa mple.com',
    ' http://example.com',
    'http://example.com ',
    'http://example.com\t',
    'http://exa\tmple.com',
    'http://example.com/\n',
    '//example.com',
    '/relative/path',
    'example.com',
    'mailto:someone@example.com',
    'http://[::1]:8080/',
    'http://example.com:99999/',
    'javascript:alert(1)',
  );
  void schemes;
  return values;
}

const urlArb = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.webUrl().map((u) => u.replace('https', 'wss')),
  fc.string(),
);

function authenticationValues(): unknown[] {
  return [
    { type: 'none' },
    { type: 'bearer', token: 'tok_123' },
    { type: 'bearer' },
    { type: 'bearer', token: '' },
    { type: 'bearer', token: '***ENCRYPTED***' },
    { type: 'bearer', token: 5 },
    { type: 'basic', username: 'u', password: 'p' },
    { type: 'basic', username: 'u' },
    { type: 'basic', password: 'p' },
    { type: 'basic' },
    { type: 'basic', username: 'u', password: '***ENCRYPTED***' },
    { type: 'basic', username: 'u', password: 'p', realm: 'x' },
    { type: 'api_key', key: 'k' },
    { type: 'api_key', key: 'k', headerName: 'X-Api-Key' },
    { type: 'api_key', headerName: 'X-Api-Key' },
    { type: 'api_key' },
    { type: 'api_key', key: 'k', headerName: 'X Api Key' },
    { type: 'api_key', key: 'k', headerName: '' },
    { type: 'api_key', key: 'k', in: 'query' },
    { type: 'none', token: 'x' },
    { type: 'oauth' },
    { type: 'BEARER', token: 'x' },
    {},
    { token: 'x' },
    'bearer',
  ];
}

const authenticationArb = fc.record(
  {
    type: fc.constantFrom('none', 'bearer', 'basic', 'api_key', 'other'),
    token: fc.oneof(fc.string(), fc.integer()),
    username: fc.string(),
    password: fc.string(),
    key: fc.string(),
    headerName: fc.string(),
  },
  { requiredKeys: ['type'] },
);

function intValues(min: number, max: number | undefined): unknown[] {
  const values: unknown[] = [min, min - 1, min + 1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e21, 5e-324, min + 0.5, `${min}`, `${min + 1}`, -0];
  if (max !== undefined) values.push(max, max + 1, max - 1, max + 0.5);
  return values;
}

/**
 * The values of a kind for one field, all of them given to every field of the kind: `every` (wrong
 * types, and the values that tell a route's wiring apart), `boundaries` (the grammar's edges, on
 * both sides of each rule), and `sampled`, drawn with `seed`.
 */
export interface KindValues {
  every: unknown[];
  boundaries: unknown[];
  sampled: unknown[];
}

export function valuesOf(kind: Kind, seed: number, samples: number): KindValues {
  const sample = (arb: fc.Arbitrary<unknown>): unknown[] => (samples > 0 ? fc.sample(arb, { seed, numRuns: samples }) : []);
  switch (kind.type) {
    case 'string':
      return {
        every: [...WRONG_TYPES, 'x', ' padded '],
        boundaries: ['Telstra', 'ünïcödé', '\u0000', '\ud800', 'a'.repeat(1000)],
        sampled: sample(fc.string({ unit: 'grapheme' })),
      };
    case 'id':
      return {
        every: [' ', 'x y', 'ü', 12, NaN, null, {}],
        boundaries: ['\t', '.', '..', 'a/b', '%', '?', '#', '\ud800', 1.5, Infinity, true, ''],
        sampled: sample(fc.string()),
      };
    case 'enum': {
      const variants = kind.values.flatMap((v) => [v, v.toLowerCase(), ` ${v}`]);
      return {
        every: [...WRONG_TYPES, ...new Set(variants)],
        boundaries: kind.values.map((v) => `${v} `),
        sampled: sample(fc.oneof(fc.constantFrom(...kind.values), fc.string())),
      };
    }
    case 'int':
      return {
        every: [...WRONG_TYPES, kind.min, kind.min - 1, ...(kind.max === undefined ? [] : [kind.max, kind.max + 1]), `${kind.min}`],
        boundaries: intValues(kind.min, kind.max),
        sampled: sample(fc.oneof(fc.integer({ min: kind.min - 5, max: (kind.max ?? 1000) + 5 }), fc.double())),
      };
    case 'email':
      return { every: [...WRONG_TYPES, 'user@example.com', 'jürgen@münchen.example', 'plain'], boundaries: emailValues(), sampled: sample(emailArb) };
    case 'e164':
      return { every: [...WRONG_TYPES, '+14155550100', '14155550100'], boundaries: e164Values(), sampled: sample(e164Arb) };
    case 'boolean':
      return { every: [...WRONG_TYPES, 'true', 'false'], boundaries: [], sampled: [] };
    case 'url':
      return {
        every: [...WRONG_TYPES, 'https://example.com/hook', ' http://example.com'],
        boundaries: urlValues(kind.schemes),
        sampled: sample(urlArb),
      };
    case 'json':
      return {
        every: [...WRONG_TYPES, 'x', ' padded ', -5],
        boundaries: [0.1, 'USD', { nested: [1, 'a'] }, Infinity],
        sampled: sample(fc.jsonValue({ maxDepth: 3 })),
      };
    case 'authentication':
      return {
        every: [...WRONG_TYPES, { type: 'none' }, { type: 'basic', username: 'u' }],
        boundaries: authenticationValues(),
        sampled: sample(authenticationArb),
      };
    case 'object':
      return { every: [...WRONG_TYPES, 'x', 5, [{}], { unknownMember: 1 }], boundaries: [], sampled: [] };
  }
}
