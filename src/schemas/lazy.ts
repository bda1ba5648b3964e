import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * What zod's classic API sets up when it builds its first schema, set the same way before ours
 * are built: English messages (the ones RequestValidationError and ResponseValidationError carry)
 * and the memoizer (read when a schema is built: a reference cycle in a body is then parsed,
 * not a stack overflow). Only what is unset: an application's own `z.config()` wins.
 */
function useZodDefaults(): void {
  const config = z.config();
  if (!config.localeError) z.config(en());
  if (!config.memoizer) z.config({ memoizer: z.memoizer() });
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
