import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  // The webhooks entry for runtimes without Node's modules (export conditions workerd and edge-light).
  'webhooks/web': 'src/webhooks/web.ts',
  // Fleet mode: loaded only by those who import it, with ioredis (an optional peer) of their own.
  'redis/index': 'src/redis/index.ts',
};

/**
 * The sandbox shares no code with the client (it implements the spec, not the client's idea of
 * it), so it is built on its own, once: as CommonJS, minified (it is a development tool, and the
 * packed package has a 310 kB budget). `import` and `require` both load that one file (Node
 * reads a CommonJS module's named exports for `import`), so there is a single copy to ship.
 */
const sandboxEntry = { 'sandbox/index': 'src/sandbox/index.ts' };

// The sandbox's router is bundled into the sandbox's own chunks, so a client-only install never
// downloads it (only the sandbox imports it; the client and webhook entries never do). `ws` is
// an optional peer dependency loaded on first use by the voice-stream receiver, so it stays
// external. Everything else the package needs is in `dependencies`.
const bundled = ['hono'];

// No source maps in the package. Measured on the packed tarball: with maps it is ~757 kB, with
// maps without sourcesContent still ~438 kB (plus ~114 kB if src/ shipped for them to point at),
// without maps ~250 kB against a 300 kB budget (310 kB since the fleet entry). The output is unminified ESM/CJS that keeps the
// source's names and structure, so a stack trace into dist/ stays readable without a map.
const sourcemap = false;

/**
 * The `partner-sandbox` bin imports the sandbox from the built `sandbox/index.cjs` next to it
 * instead of carrying a second copy of the whole emulator (and its router).
 */
const cliUsesSandboxEntry: Plugin = {
  name: 'cli-uses-sandbox-entry',
  setup(build) {
    build.onResolve({ filter: /^\.\/server\.js$/ }, (args) =>
      /[\\/]sandbox[\\/]cli\.ts$/.test(args.importer) ? { path: './index.cjs', external: true } : undefined,
    );
  },
};

export default defineConfig([
  {
    entry,
    format: ['esm'],
    dts: true,
    sourcemap,
    clean: true,
    target: 'node20',
    splitting: true,
    treeshake: true,
    noExternal: bundled,
  },
  {
    entry,
    format: ['cjs'],
    dts: true,
    sourcemap,
    target: 'node20',
    // Shared chunks, as in the ESM build: an error class is the same class whichever entry
    // point a CommonJS caller required it from, so instanceof holds across them.
    splitting: true,
    treeshake: true,
    // p-retry (and its is-network-error dependency) ship as ESM only; Node 20.18
    // cannot require() ESM, so the CommonJS build carries its own copy.
    noExternal: ['p-retry', 'is-network-error', ...bundled],
  },
  {
    entry: sandboxEntry,
    format: ['cjs'],
    dts: true,
    sourcemap,
    target: 'node20',
    treeshake: true,
    minify: true,
    noExternal: bundled,
  },
  {
    entry: { 'sandbox/cli': 'src/sandbox/cli.ts' },
    format: ['esm'],
    sourcemap,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    esbuildPlugins: [cliUsesSandboxEntry],
  },
]);
