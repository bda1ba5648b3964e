import fast from './stryker.config.mjs';

/**
 * Mutation testing of fleet mode's TypeScript side (the Lua scripts as sent, the limiter's and the
 * dedupe store's encoding of their arguments and answers), against test/redis/ on a real
 * redis-server (`apt-get install -y redis-server`). See stryker.config.mjs for the rest.
 */
export default {
  ...fast,
  mutate: ['src/redis/scripts.ts', 'src/redis/rate-limiter.ts', 'src/redis/dedupe-store.ts'],
  vitest: { ...fast.vitest, configFile: 'test/mutation/vitest.redis.config.ts' },
  // The scripts are built when their module loads: every mutant of scripts.ts is static, and is
  // tested by running test/redis/ with it (a killed one stops at the first failing test).
  ignoreStatic: false,
  incrementalFile: 'reports/stryker-redis-incremental.json',
  htmlReporter: { fileName: 'reports/mutation/redis.html' },
  jsonReporter: { fileName: 'reports/mutation/redis.json' },
};
