import type { SandboxCounters } from './context.js';

/** Side-effect counters, so tests can prove a retried write happened once. */
export function createCounters(): SandboxCounters {
  const values = new Map<string, number>();
  return {
    bump(name, by = 1) {
      values.set(name, (values.get(name) ?? 0) + by);
    },
    get: (name) => values.get(name) ?? 0,
    snapshot: () => Object.fromEntries([...values.entries()].sort(([a], [b]) => a.localeCompare(b))),
    clear: () => values.clear(),
  };
}
