import * as z from 'zod/mini';

/**
 * What zod's classic API sets up when it builds its first schema, set the same way before ours
 * are built: the memoizer (read when a schema is built: a reference cycle in a body is then
 * parsed, not a stack overflow), only when unset, so that an application's own `z.config()` wins.
 * The SDK's messages are its own (messages.ts), given to the parse that explains a refusal:
 * zod's locale is not touched.
 */
function useZodDefaults(): void {
  if (!z.config().memoizer) z.config({ memoizer: z.memoizer() });
}

/**
 * A value built on first use and kept: schemas are declared at module level but constructed only
 * when a call needs them, so importing the package builds none (issue 6, cold start). The getter
 * costs one branch per call once built.
 */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      useZodDefaults();
      value = build();
      built = true;
    }
    return value as T;
  };
}
