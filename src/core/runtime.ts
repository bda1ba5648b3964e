import { ConfigurationError } from './errors.js';
import type { ClientOptions } from './options.js';

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

/**
 * The fetch a client sends with where undici is not its wire: the caller's `fetch`, else the
 * platform's. A `dispatcher` is undici's and has no meaning there: refused by name.
 */
export function platformFetch(options: Readonly<ClientOptions>, runtime: string): typeof globalThis.fetch {
  if (options.fetch) return options.fetch;
  if (options.dispatcher !== undefined) {
    throw new ConfigurationError(
      `invalid client option dispatcher: an undici Dispatcher is used only under Node; ${runtime} sends with its own fetch (pass fetch to replace it)`,
      'CONFIGURATION_ERROR',
      'dispatcher',
    );
  }
  return globalThis.fetch.bind(globalThis);
}

type BuiltinLoader = (id: string) => unknown;

/**
 * A Node built-in module (`node:diagnostics_channel`, `node:module`), looked up through
 * `process.getBuiltinModule`, never imported: undefined where the runtime has no such lookup
 * (Workers, edge runtimes, Node before 20.16) or refuses the module.
 */
export function nodeBuiltin(id: string): unknown {
  const runtime = (globalThis as { process?: { getBuiltinModule?: BuiltinLoader } }).process;
  const load = runtime?.getBuiltinModule;
  if (typeof load !== 'function') return undefined;
  try {
    return load.call(runtime, id);
  } catch {
    return undefined;
  }
}

/** What the client reads of `node:events` to size a signal's listener limit. */
interface EventsModule {
  readonly defaultMaxListeners: number;
  getMaxListeners(target: EventTarget): number;
  setMaxListeners(n: number, target: EventTarget): void;
}

/** Signals whose listener limit was looked at already: once per signal. */
const sizedSignals = new WeakSet<AbortSignal>();

/**
 * A caller's signal may be shared by any number of calls at once (one per batch, one per
 * request), each listening to it until it settles; past ten listeners Node warns of a leak that
 * is not one. Where the signal still has Node's default limit, it is lifted, as undici's `fetch`
 * does; a limit the caller set is left alone. Elsewhere, nothing to do.
 */
export function allowSharedSignal(signal: AbortSignal): void {
  if (sizedSignals.has(signal)) return;
  sizedSignals.add(signal);
  const events = nodeBuiltin('node:events') as EventsModule | undefined;
  try {
    if (events && events.getMaxListeners(signal) === events.defaultMaxListeners) events.setMaxListeners(0, signal);
  } catch {
    // Not an EventTarget Node knows (a polyfilled signal): it keeps its own rules.
  }
}
