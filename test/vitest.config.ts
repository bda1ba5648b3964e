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
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
  },
});
