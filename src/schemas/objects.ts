import * as z from 'zod/mini';

/**
 * The constructor every object schema of the SDK is built with. zod/mini's parses an object by
 * walking its shape; the one zod's classic API uses compiles that walk into a function (with
 * `new Function`) on first parse, several times faster, where the runtime allows it. The Node
 * build installs a zod/mini object with that compiled parser (core/compiled-objects.ts) before
 * any schema is built; the web build keeps zod/mini's, whose code is the smaller and which is what
 * zod falls back to anyway where `new Function` is refused (Workers). Same checks, same issues,
 * same types either way.
 */
let ObjectSchema: typeof z.ZodMiniObject = z.ZodMiniObject;

export function buildObjectsWith(constructor: typeof z.ZodMiniObject): void {
  ObjectSchema = constructor;
}

/** `z.object()`: unknown keys are stripped. */
export function object<T extends z.core.$ZodLooseShape>(shape: T): z.ZodMiniObject<z.core.util.Writeable<T>, z.core.$strip> {
  return new ObjectSchema({ type: 'object', shape }) as z.ZodMiniObject<z.core.util.Writeable<T>, z.core.$strip>;
}

/** `z.strictObject()`: an unknown key is an issue. */
export function strictObject<T extends z.core.$ZodLooseShape>(shape: T): z.ZodMiniObject<z.core.util.Writeable<T>, z.core.$strict> {
  return new ObjectSchema({ type: 'object', shape, catchall: z.never() }) as z.ZodMiniObject<z.core.util.Writeable<T>, z.core.$strict>;
}

/** `z.looseObject()`: unknown keys are kept as sent. */
export function looseObject<T extends z.core.$ZodLooseShape>(shape: T): z.ZodMiniObject<z.core.util.Writeable<T>, z.core.$loose> {
  return new ObjectSchema({ type: 'object', shape, catchall: z.unknown() }) as z.ZodMiniObject<z.core.util.Writeable<T>, z.core.$loose>;
}
