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
      value = build();
      built = true;
    }
    return value as T;
  };
}
