import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:runtimes`: every runtime run, including test/runtimes/bundled/ (wrangler,
 * workerd, the Edge Runtime), which the default suite leaves out so that it runs once in CI
 * rather than on each Node version.
 */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/runtimes/**/*.test.ts'], exclude: configDefaults.exclude, typecheck: { enabled: false } },
});
