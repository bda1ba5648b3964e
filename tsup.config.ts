import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  // The webhooks entry for runtimes without Node's modules (export conditions workerd and edge-light).
  'webhooks/web': 'src/webhooks/web.ts',
  'sandbox/index': 'src/sandbox/index.ts',
};

export default defineConfig([
  {
    entry,
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: true,
    treeshake: true,
  },
  {
    entry,
    format: ['cjs'],
    dts: true,
    sourcemap: true,
    target: 'node20',
    // Shared chunks, as in the ESM build: an error class is the same class whichever entry
    // point a CommonJS caller required it from, so instanceof holds across them.
    splitting: true,
    treeshake: true,
    // p-retry (and its is-network-error dependency) ship as ESM only; Node 20.18
    // cannot require() ESM, so the CommonJS build carries its own copy.
    noExternal: ['p-retry', 'is-network-error'],
  },
  {
    entry: { 'sandbox/cli': 'src/sandbox/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
