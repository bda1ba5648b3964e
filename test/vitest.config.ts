import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // The project's root, so that paths below and in the tests read from the top of the repository.
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    // Bundled with wrangler and run in workerd and the Edge Runtime: `npm run test:runtimes`, once in CI.
    exclude: [...configDefaults.exclude, 'test/runtimes/bundled/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Many files spend their time waiting on a child process (tsc, npm, a browser, another
    // runtime) or on loopback I/O, so one worker per core (not Vitest's cores - 1) keeps the
    // cores busy.
    maxWorkers: Math.max(2, availableParallelism()),
    // A worker loads the SDK and the sandbox once for all the files it runs, instead of once per
    // file: that loading was most of the suite's CPU time. Files share no state through it:
    // every test server and client is closed after its test, fake clocks are restored, and the
    // settings below undo stubbed environment variables, globals and spies after each test.
    isolate: false,
    unstubEnvs: true,
    unstubGlobals: true,
    restoreMocks: true,
    // The type tests and what they import (src/), not the whole project: `npm run typecheck`
    // checks every file, and CI runs it before the suite.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: 'test/tsconfig.type-tests.json' },
  },
});
