/**
 * Which runtime the client runs in, read once from globals (no import, nothing touched).
 * Node is the one runtime whose built-in wire is undici: Bun answers `import 'undici'` with a
 * partial module of its own, and Deno, Bun, Workers and edge runtimes have a platform `fetch`.
 */
interface RuntimeGlobals {
  process?: { versions?: { node?: unknown; bun?: unknown } };
  Deno?: unknown;
  Bun?: unknown;
}

/** The runtime's name where it is not Node, for messages; undefined under Node itself. */
export function nonNodeRuntime(): string | undefined {
  const globals = globalThis as RuntimeGlobals;
  if (globals.Bun !== undefined || globals.process?.versions?.bun !== undefined) return 'Bun';
  if (globals.Deno !== undefined) return 'Deno';
  if (typeof globals.process?.versions?.node !== 'string') return 'this runtime';
  return undefined;
}
