/**
 * The schemas are written with `zod/mini`, which, unlike zod's classic API, installs neither
 * English messages nor the memoizer by itself; lazy.ts sets both on first use. These tests hold
 * what each is there for.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { PartnerClient, RequestValidationError } from '../../src/index.js';
import { compileObjects } from '../../src/core/compiled-objects.js';
import { buildObjectsWith, looseObject, object, strictObject } from '../../src/schemas/objects.js';

const SCHEMA_DIR = fileURLToPath(new URL('../../src/schemas/', import.meta.url));
const modules = readdirSync(SCHEMA_DIR)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `../../src/schemas/${file}`)
  .concat('../../src/webhooks/event-types.ts');

function isSchema(value: unknown): value is z.core.$ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** Every schema a module exports, built: its lazy getters called, its schema factories too. */
async function schemasOf(path: string): Promise<[string, z.core.$ZodType][]> {
  const exported = (await import(path)) as Record<string, unknown>;
  const found: [string, z.core.$ZodType][] = [];
  for (const [name, value] of Object.entries(exported)) {
    if (isSchema(value)) found.push([name, value]);
    else if (typeof value === 'function' && value.length === 0) {
      let built: unknown;
      try {
        built = (value as () => unknown)();
      } catch {
        continue;
      }
      if (isSchema(built)) found.push([name, built]);
    }
  }
  return found;
}

describe('the zod/mini schemas', () => {
  it('keep the memoizer: a body field of any JSON value (z.json(), which re-enters itself) holding a cycle is refused, not a stack overflow', async () => {
    let sent = 0;
    const client = new PartnerClient({
      baseUrl: 'https://api.example',
      key: 'key',
      secret: 'secret',
      fetch: async () => {
        sent += 1;
        return new Response('{}');
      },
    });
    const cyclic: Record<string, unknown> = { note: 'x' };
    cyclic['self'] = cyclic;
    const error = await client.billing.topUp({ amount: 5, extra: cyclic } as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]?.path).toBe('body');
    expect(sent).toBe(0);
  });

  it('are the ones the memoizer acts on exactly where a JSON value is taken', async () => {
    const recursive: string[] = [];
    for (const path of modules) {
      for (const [name, schema] of await schemasOf(path)) if (z.core.isRecursiveSchema(schema)) recursive.push(name);
    }
    expect(recursive.length).toBeGreaterThan(0);
    expect(recursive).toContain('jsonValue');
    expect(recursive).not.toContain('simListSchema');
  });

  it('speak English once the first schema is built, as the classic API does', async () => {
    const { simListParamsSchema } = await import('../../src/schemas/sim.js');
    const result = z.safeParse(simListParamsSchema(), { pageSize: 'ten' });
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['Invalid input: expected number, received string']);
  });

  it('build their objects with zod’s compiled parser in the Node build, which parses exactly as zod/mini’s', async () => {
    const { simListSchema } = await import('../../src/schemas/sim.js');
    const compiledTrait = (schema: z.core.$ZodType) => schema._zod.traits.has('$ZodObjectJIT');
    expect(compiledTrait((simListSchema() as unknown as { _zod: { def: { element: z.core.$ZodType } } })._zod.def.element)).toBe(true);

    const shape = () => ({
      iccid: z.string(),
      isEsim: z.boolean(),
      group: z.optional(z.nullable(z.string())),
      device: z.optional(z.nullable(looseObject({ imei: z.string() }))),
    });
    const kinds = () => [
      looseObject(shape()),
      strictObject(shape()),
      object(shape()),
      z.extend(looseObject(shape()), { extra: z.number() }),
      z.partial(strictObject(shape())),
    ];
    try {
      buildObjectsWith(z.ZodMiniObject);
      const walked = kinds();
      compileObjects();
      const compiled = kinds();
      expect(walked.some(compiledTrait)).toBe(false);
      expect(compiled.every(compiledTrait)).toBe(true);
      expect(compiled.every((schema) => schema instanceof z.ZodMiniObject)).toBe(true);
      const inputs: unknown[] = [
        { iccid: 'x', isEsim: true },
        { iccid: 'x', isEsim: true, group: null, device: { imei: '1', model: 'kept' }, unknown: 1 },
        { iccid: 1, isEsim: 'no', group: 5, device: { imei: 2 } },
        {},
        { extra: 'x' },
        null,
        [],
        'text',
      ];
      for (const input of inputs) {
        walked.forEach((schema, index) => {
          const [left, right] = [z.safeParse(schema, input), z.safeParse(compiled[index] as z.core.$ZodType, input)];
          expect(right.success, JSON.stringify(input)).toBe(left.success);
          expect(right.data).toEqual(left.data);
          expect(right.data && Object.keys(right.data)).toEqual(left.data && Object.keys(left.data as object));
          expect(right.error?.issues.map(({ path, message, code }) => ({ path, message, code }))).toEqual(
            left.error?.issues.map(({ path, message, code }) => ({ path, message, code })),
          );
        });
      }
    } finally {
      compileObjects();
    }
  });
});
