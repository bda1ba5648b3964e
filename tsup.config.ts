import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { parse } from 'acorn';
import { transform, type Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';

type TsupPlugin = NonNullable<Options['plugins']>[number];

/**
 * The ESM entries. `index.web` and `webhooks/web` are the package as Workers, edge runtimes and
 * browsers get it (export conditions workerd, worker, edge-light, browser): built in the same
 * run as the Node entries, with the web twins in place (webTwins below), so that every module
 * the two graphs have in common is one shared chunk: an error class is the same class from
 * either, and the package carries one copy of the client's code, not two.
 */
const esmEntry = {
  index: 'src/index.ts',
  'index.web': 'src/web.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  'webhooks/web': 'src/webhooks/web.ts',
  // Fleet mode: loaded only by those who import it, with ioredis (an optional peer) of their own.
  'redis/index': 'src/redis/index.ts',
};

/** The CommonJS entries: Node only (require), so no web entry. */
const cjsEntry = {
  index: 'src/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  // Fleet mode: loaded only by those who import it, with ioredis (an optional peer) of their own.
  'redis/index': 'src/redis/index.ts',
};

/**
 * The sandbox implements the spec, not the client's idea of it: it imports nothing of the
 * client, and shares with it only the spec's grammars in src/shared/ (route templates, E.164,
 * the loopback listener) and the wording of an unknown option, which its build carries a copy of. So it is built on its own, once: as
 * CommonJS, minified (it is a development tool, and the packed package has a 299 kB budget).
 * `import` and `require` both load that one file (Node reads a CommonJS module's named exports
 * for `import`), so there is a single copy to ship.
 */
const sandboxEntry = { 'sandbox/index': 'src/sandbox/index.ts' };

// The sandbox's router is bundled into the sandbox's own chunks, so a client-only install never
// downloads it (only the sandbox imports it; the client and webhook entries never do). `ws` is
// an optional peer dependency loaded on first use by the voice-stream receiver, so it stays
// external. Everything else the package needs is in `dependencies`.
const bundled = ['hono'];

// No source maps in the package. Measured on the packed tarball: with maps it is ~757 kB, with
// maps without sourcesContent still ~438 kB (plus ~114 kB if src/ shipped for them to point at),
// without maps ~250 kB (before the web build, tracing and fleet mode) against the budget. The
// client's output (every entry but the sandbox, which is minified) is ESM/CJS that keeps the
// source's names and structure, so a stack trace into the client's dist/ stays readable without a map.
const sourcemap = false;

/** A comment a bundler reads: a call or function it may drop when its result is unused. */
const ANNOTATION = /^\s*[@#]__(?:PURE|NO_SIDE_EFFECTS)__\s*$/;

/**
 * The JavaScript ships without comments, laid out as written otherwise. esbuild keeps the
 * source's doc comments on class members and some statements; a partner reads them in the
 * declarations (.d.ts), where editors show them, not in the JavaScript, and a bundler that does
 * not minify (`wrangler deploy` by default) carries every one of them into a Worker's upload:
 * they were a sixth of its gzip size. Comments are found by parsing (acorn), so none inside a
 * string, template or regular expression is touched; the `@__PURE__` marks stay, since a
 * partner's bundler drops an unused call by them. Then esbuild prints the code again, so names,
 * lines and stack traces stay as readable as before.
 */
const withoutComments: TsupPlugin = {
  name: 'without-comments',
  async renderChunk(code, chunk) {
    if (!/\.[cm]?js$/.test(chunk.path)) return undefined;
    const comments: { start: number; end: number; text: string; block: boolean }[] = [];
    // A CommonJS build with shared chunks is still ESM here (tsup turns it into CommonJS after).
    parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      allowHashBang: true,
      onComment: (block, text, start, end) => comments.push({ start, end, text, block }),
    });
    let kept = '';
    let from = 0;
    for (const comment of comments) {
      // The bin's `#!` line is read by the shell, and the marks by a partner's bundler.
      if (comment.start === 0 && code.startsWith('#!')) continue;
      if (comment.block && ANNOTATION.test(comment.text)) continue;
      // A block comment that spans lines ends a statement as a line break does: keep one.
      kept += code.slice(from, comment.start) + (comment.block && /[\n\r\u2028\u2029]/.test(comment.text) ? '\n' : ' ');
      from = comment.end;
    }
    kept += code.slice(from);
    return { code: (await transform(kept, { loader: 'js', legalComments: 'none' })).code };
  },
};

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

const sourceDir = resolve('src') + sep;
const webRoots = new Set([resolve(esmEntry['index.web']), resolve(esmEntry['webhooks/web'])]);
const WEB = '?web';

/** `X.web.ts` beside `X.ts`, when there is one. */
function twinOf(file: string): string | undefined {
  const twin = file.replace(/\.ts$/, '.web.ts');
  return twin !== file && existsSync(twin) ? twin : undefined;
}

/** The source files a module imports or re-exports as values (type-only imports are erased). */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const pattern = /^(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)\.js['"]/gm;
  return [...source.matchAll(pattern)].map((match) => resolve(dirname(file), `${match[1]}.ts`)).filter((path) => existsSync(path));
}

/**
 * The modules that must be built twice: those with a twin, and those that import one (however
 * deep). Read once from the web roots' graph; everything else is shared between the two graphs.
 */
let twinDependents: Set<string> | undefined;
function needsWebCopy(file: string): boolean {
  if (!twinDependents) {
    const graph = new Map<string, string[]>();
    const pending = [...webRoots];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (graph.has(next)) continue;
      const imports = importsOf(next);
      graph.set(next, imports);
      pending.push(...imports);
    }
    const marked = new Set([...graph.keys()].filter((path) => twinOf(path)));
    for (let grew = true; grew;) {
      grew = false;
      for (const [path, imports] of graph) {
        if (!marked.has(path) && imports.some((item) => marked.has(item))) {
          marked.add(path);
          grew = true;
        }
      }
    }
    twinDependents = marked;
  }
  return twinDependents.has(file);
}

/**
 * The web graph: from src/web.ts and src/webhooks/web.ts, a module with a `.web.ts` twin beside
 * it is replaced by the twin (default-wire.web.ts sends with fetch and never imports undici;
 * hmac.web.ts computes the webhook HMAC without node:crypto), and a module that imports one is
 * built a second time (marked with a `?web` suffix) so that its copy imports the twin. Every other
 * module is the Node graph's own. A twin exports the same names and types as its original
 * (test/types/web-twins.test-d.ts), so one set of declarations describes both graphs.
 */
const webTwins: Plugin = {
  name: 'web-twins',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      const fromWeb = (args.pluginData as { web?: boolean } | undefined)?.web === true;
      if (!fromWeb || !args.importer.startsWith(sourceDir)) return undefined;
      const target = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      if (!needsWebCopy(target)) return undefined;
      return { path: twinOf(target) ?? target, suffix: WEB };
    });
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.suffix !== WEB && !webRoots.has(args.path)) return undefined;
      return { contents: readFileSync(args.path, 'utf8'), loader: 'ts', resolveDir: dirname(args.path), pluginData: { web: true } };
    });
  },
};

/**
 * The entries whose declarations the package ships: one set, written once as .d.cts by the
 * CommonJS build. `webhooks/web` has no CommonJS build; its declarations are written beside the
 * others so that they share the same declaration chunks.
 */
const declarationEntry = {
  index: esmEntry.index,
  'webhooks/index': esmEntry['webhooks/index'],
  'webhooks/web': esmEntry['webhooks/web'],
  'redis/index': esmEntry['redis/index'],
};

/**
 * The ESM entries' declarations (.d.ts) re-export the CommonJS ones (.d.cts) instead of being a
 * second copy of them: the two copies were the same text, a third of the packed package. An ES
 * module may re-export a CommonJS one (the reverse is refused by TypeScript under node16), so
 * `import` and `require` resolve the same declarations, and a class is one type for both.
 * index.web shares dist/index.d.ts with index (the package's exports point both at it).
 */
const declarationStubs: TsupPlugin = {
  name: 'declaration-stubs',
  async buildEnd() {
    for (const name of Object.keys(declarationEntry)) {
      const file = resolve(this.options.outDir, `${name}.d.ts`);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, `export * from './${name.split('/').at(-1)}.cjs';\n`);
    }
  },
};

export default defineConfig([
  {
    entry: esmEntry,
    format: ['esm'],
    // The declarations are the CommonJS build's (declarationEntry); these stubs give them to
    // `import` too.
    dts: false,
    sourcemap,
    clean: true,
    target: 'node20',
    splitting: true,
    treeshake: true,
    noExternal: bundled,
    esbuildPlugins: [webTwins],
    plugins: [withoutComments, declarationStubs],
  },
  {
    entry: cjsEntry,
    format: ['cjs'],
    dts: { entry: declarationEntry },
    sourcemap,
    target: 'node20',
    // Shared chunks, as in the ESM build: an error class is the same class whichever entry
    // point a CommonJS caller required it from, so instanceof holds across them.
    splitting: true,
    treeshake: true,
    noExternal: bundled,
    plugins: [withoutComments],
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
    plugins: [withoutComments],
  },
]);
