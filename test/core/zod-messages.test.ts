/**
 * The messages of the SDK's checks (src/schemas/messages.ts): zod's English wording for every
 * issue the SDK's schemas can raise, given to each parse the SDK makes, so that zod's global
 * configuration is neither read nor changed by the SDK.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { PartnerClient, RequestValidationError, ResponseValidationError } from '../../src/index.js';
import { zodMessages } from '../../src/schemas/messages.js';
import { ok } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';

class Sim {}

/** A schema and inputs it refuses, one for each kind of issue the SDK's schemas raise. */
const CASES: Array<[string, z.core.$ZodType, unknown[]]> = [
  ['a type', z.string(), [1, null, undefined, [], {}, Number.NaN, Number.POSITIVE_INFINITY, new Date(0), new Sim(), Object.create(null), true, 1n]],
  ['a literal', z.literal('ACTIVE'), ['active', 1]],
  ['an enum', z.enum(['ACTIVE', 'SUSPENDED']), ['active']],
  ['a string length', z.string().check(z.minLength(2), z.maxLength(3)), ['a', 'abcd']],
  ['an exact length', z.string().check(z.length(2)), ['a']],
  ['an array length', z.array(z.number()).check(z.minLength(1), z.maxLength(2)), [[], [1, 2, 3]]],
  ['a number', z.number().check(z.gte(1), z.lt(10)), [0, 10]],
  ['an exclusive number', z.number().check(z.gt(1), z.lte(10)), [1, 11]],
  ['an integer', z.int(), [1.5, 2 ** 60]],
  ['a pattern', z.string().check(z.regex(/^\+[1-9]\d{1,14}$/)), ['555']],
  [
    'unknown keys',
    z.strictObject({ a: z.string() }),
    [
      { a: 'x', b: 1 },
      { a: 'x', b: 1, c: 2 },
    ],
  ],
  ['a union', z.union([z.string(), z.number()]), [true]],
  [
    'a discriminator',
    z.discriminatedUnion('type', [z.object({ type: z.literal('basic') }), z.object({ type: z.literal('bearer') })]),
    [{ type: 'x' }],
  ],
  ['a refinement', z.string().check(z.refine(() => false)), ['x']],
];

const messages = (schema: z.core.$ZodType, input: unknown, error: z.core.$ZodErrorMap) =>
  (z.safeParse(schema, input, { error }).error?.issues ?? []).map((issue) => issue.message);

/** The zod functions the SDK's schemas are built with: those whose issues the messages word. */
const WORDED = [
  'array',
  'boolean',
  'catchall',
  'discriminatedUnion',
  'enum',
  'extend',
  'int',
  'json',
  'literal',
  'looseObject',
  'maximum',
  'minimum',
  'minLength',
  'never',
  'nullable',
  'number',
  'object',
  'optional',
  'partial',
  'refine',
  'regex',
  'strictObject',
  'string',
  'superRefine',
  'union',
  'unknown',
];

describe("the SDK's check messages", () => {
  it('word every check the SDK builds its schemas with: a new kind of check needs its message first', () => {
    const root = new URL('../../src/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.startsWith('sandbox'));
    const used = new Set(
      files.flatMap((file) => [...readFileSync(new URL(file, root), 'utf8').matchAll(/\bz\.([a-z]\w*)\(/g)].map(([, name = '']) => name)),
    );
    for (const name of ['config', 'memoizer', 'safeParse']) used.delete(name);
    expect([...used].sort()).toEqual([...WORDED].sort());
  });

  it.each(CASES)("are zod's English ones for %s", (_, schema, inputs) => {
    for (const input of inputs) {
      const ours = messages(schema, input, zodMessages);
      expect(ours.length).toBeGreaterThan(0);
      expect(ours).toEqual(messages(schema, input, en().localeError));
    }
  });
});

describe('zod as the application configured it', () => {
  const t = useTestServer();

  // zod's configuration is global: as this worker's earlier files left it, restored after each test.
  let saved: { customError: z.core.$ZodErrorMap | undefined; localeError: z.core.$ZodErrorMap | undefined };
  beforeEach(() => {
    const { customError, localeError } = z.config();
    saved = { customError, localeError };
  });
  afterEach(() => {
    z.config(saved);
  });

  const refusedInput = async (client: PartnerClient): Promise<RequestValidationError> =>
    client.sims.list({ pageSize: 'ten' as unknown as number }).then(
      () => expect.unreachable('the input was accepted'),
      (error: unknown) => error as RequestValidationError,
    );

  it('is left as it was: the SDK sets no locale of its own', async () => {
    // As an application using zod/mini alone has it: no locale.
    z.config({ localeError: undefined });
    const client = await t.connect();
    const error = await refusedInput(client);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.issues).toEqual([{ path: 'pageSize', message: 'Invalid input: expected number, received string' }]);
    expect(z.config().localeError).toBeUndefined();
    // An application's own zod/mini schema still speaks as the application left zod: not in the SDK's words.
    expect(z.safeParse(z.string(), 1).error?.issues[0]?.message).toBe('Invalid input');
  });

  it("does not change the SDK's messages, in what the caller sends or what the server answers", async () => {
    z.config({ customError: () => 'the application says no' });
    t.server.on('GET /api/v1.1/sims', ok([{ iccid: 42 }], { meta: { page: 1, pageSize: 20, total: 1, totalPages: 1 } }));
    const client = await t.connect();
    const refused = await refusedInput(client);
    expect(refused.issues[0]?.message).toBe('Invalid input: expected number, received string');
    const answered = await client.sims.list().then(
      () => expect.unreachable('the answer was accepted'),
      (error: unknown) => error as ResponseValidationError,
    );
    expect(answered).toBeInstanceOf(ResponseValidationError);
    expect(answered.issues.map((issue) => issue.message)).toContain('Invalid input: expected string, received number');
    expect(answered.issues.map((issue) => issue.message)).not.toContain('the application says no');
  });
});
