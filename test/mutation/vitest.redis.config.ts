import { defineConfig } from 'vitest/config';
import integration from '../vitest.integration.config.js';

/**
 * test/redis/ and the fast tier's files that build fleet mode's classes themselves (their refused
 * options, the in-memory fallback, why a call ends when Redis refuses), for mutation testing of
 * src/redis/ (stryker.redis.config.mjs): a mutant those files kill is killed. The tier's
 * global setup is left out: it reads the files to run from Vitest's command line, which Stryker
 * does not use, and would ask for Chromium too; test/helpers/redis.ts fails naming the install
 * command when redis-server is missing.
 */
export default defineConfig({
  ...integration,
  test: {
    ...integration.test,
    include: [
      'test/redis/**/*.test.ts',
      'test/core/rate-limit.test.ts',
      'test/core/call-end.test.ts',
      'test/core/unknown-options.test.ts',
      'test/webhooks/unknown-options.test.ts',
    ],
    globalSetup: [],
  },
});
