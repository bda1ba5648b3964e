/**
 * The suite's two tiers, decided in one place.
 *
 * - The fast tier (`npm test`, test/vitest.config.ts) is every `test/**\/*.test.ts` file not listed
 *   below: unit and in-process end-to-end tests over loopback HTTP (client, resources, webhooks,
 *   observability, the sandbox in-process). It needs Node.js and `npm install`, nothing else.
 * - The integration tier (`npm run test:integration`, test/vitest.integration.config.ts) is the
 *   files below: each drives a real process or component — redis-server, Chromium, the built
 *   package and its bin, `npm pack` and install, the TypeScript compiler over the published types
 *   or the docs, Bun, Deno, workerd and the Edge Runtime, child processes of Node.
 *
 * A file is in exactly one tier: the fast tier excludes these patterns and the integration tier
 * includes only them, so no test can fall between the two.
 */
export const integrationFiles: readonly string[] = [
  // Real redis-server (a Redis Cluster too): fleet limiter, dedupe store, their child processes.
  'test/redis/**/*.test.ts',
  // Real headless Chromium, and the inspector's command.
  'test/sandbox/inspector/page.test.ts',
  'test/sandbox/inspector/cross-site.test.ts',
  'test/sandbox/inspector/cli.test.ts',
  // The built `partner-sandbox` bin as a child process.
  'test/sandbox/cli/**/*.test.ts',
  'test/sandbox/process.test.ts',
  'test/sandbox/cli-banner.test.ts',
  // The built package: npm pack and install, the consumer compile, its entries and its bundles.
  'test/package/**/*.test.ts',
  'test/webhooks/web-entry.test.ts',
  // The TypeScript compiler over the project: result types as an editor shows them, and every
  // exported answer type held exact.
  'test/types/named-types.test.ts',
  'test/types/exact-answers.test.ts',
  // Documentation snippets compiled by tsc against the built package, the getting-started page
  // run by Node against it; the examples as processes.
  'test/docs/snippets.test.ts',
  'test/docs/getting-started.test.ts',
  // The guides' links as the packed package holds them (npm pack --dry-run).
  'test/docs/shipped-links.test.ts',
  'test/examples/**/*.test.ts',
  // Bun, Deno, workerd (wrangler + miniflare) and the Edge Runtime.
  'test/runtimes/**/*.test.ts',
  // Child processes of Node that must exit by themselves.
  'test/process/**/*.test.ts',
  // The quick soak: a chaos run against a faulted sandbox.
  'test/bench/**/*.test.ts',
];

/** A system package the integration tier drives, and the files that drive it. */
export interface SystemComponent {
  name: string;
  /** The executable looked up on PATH. */
  command: string;
  /** The Debian/Ubuntu package that installs it. */
  debianPackage: string;
  /** Path prefixes of the files that need it: a run filtered to other files does not check it. */
  neededBy: readonly string[];
}

/**
 * What the integration tier drives and how to install it. Checked once before the tier runs: a
 * missing one fails the run with its install command; nothing is skipped.
 */
export const systemComponents: readonly SystemComponent[] = [
  { name: 'redis-server', command: 'redis-server', debianPackage: 'redis-server', neededBy: ['test/redis/'] },
  { name: 'redis-cli', command: 'redis-cli', debianPackage: 'redis-server', neededBy: ['test/redis/'] },
  { name: 'Chromium', command: 'chromium', debianPackage: 'chromium', neededBy: ['test/sandbox/inspector/'] },
];

/**
 * Integration files whose behaviour depends on the Node.js version (timers and handles at exit,
 * a child process's startup and exit code): CI runs them on Node 22 and 24 as well as 20, with
 * `NODE_SENSITIVE_ONLY=1 npm run test:integration`.
 */
export const nodeSensitiveFiles: readonly string[] = ['test/process/**/*.test.ts', 'test/sandbox/cli/**/*.test.ts'];
