import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { integrationFiles } from './tiers.js';

/**
 * The fast tier, `npm test`: every test file but the integration tier's (test/tiers.ts). Node.js
 * and `npm install` are all it needs. The type tests (`*.test-d.ts`) run in `npm run typecheck`.
 */
export default defineConfig({
  // The project's root, so that paths below and in the tests read from the top of the repository.
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...integrationFiles],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Files spend much of their time waiting on loopback I/O and timers (on two cores, two
    // workers kept them 55 % busy), so at least four workers, and one per core beyond that.
    maxWorkers: Math.max(4, availableParallelism()),
    // A worker loads the SDK and the sandbox once for all the files it runs, instead of once per
    // file: that loading was most of the suite's CPU time. Files share no state through it:
    // every test server and client is closed after its test, fake clocks are restored, and the
    // settings below undo stubbed environment variables, globals and spies after each test.
    isolate: false,
    unstubEnvs: true,
    unstubGlobals: true,
    restoreMocks: true,
    // `npm run typecheck` runs the type tests with `--typecheck.only`: they and what they import
    // (src/), not the whole project, which `tsc --noEmit` checks first.
    typecheck: { enabled: false, include: ['test/**/*.test-d.ts'], tsconfig: 'test/tsconfig.type-tests.json' },
  },
});
