import { defineConfig } from 'vitest/config';
import integration from '../vitest.integration.config.js';

/**
 * test/redis/ alone, for mutation testing of src/redis/ (stryker.redis.config.mjs). The tier's
 * global setup is left out: it reads the files to run from Vitest's command line, which Stryker
 * does not use, and would ask for Chromium too; test/helpers/redis.ts fails naming the install
 * command when redis-server is missing.
 */
export default defineConfig({
  ...integration,
  test: {
    ...integration.test,
    include: ['test/redis/**/*.test.ts'],
    globalSetup: [],
  },
});
