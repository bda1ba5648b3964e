import fast from './stryker.config.mjs';

/**
 * Mutation testing of fleet mode's TypeScript side (the Lua scripts as sent, their named layouts,
 * encoders and decoders; the limiter's queue, runs and policy; the dedupe store), against
 * test/redis/ on a real redis-server (`apt-get install -y redis-server`). See stryker.config.mjs
 * for the rest.
 */
export default {
  ...fast,
  mutate: [
    // The scripts: their KEYS and ARGV by name, the Lua, each one's encoder and decoder.
    'src/redis/script-layout.ts',
    'src/redis/scripts.ts',
    'src/redis/settle-script.ts',
    // The limiter: what is sent to Redis, the queue of each route, the public class and its policy.
    'src/redis/route-runs.ts',
    'src/redis/route-queue.ts',
    'src/redis/rate-limiter.ts',
    // The dedupe store and its scripts.
    'src/redis/dedupe-scripts.ts',
    'src/redis/dedupe-store.ts',
  ],
  vitest: { ...fast.vitest, configFile: 'test/mutation/vitest.redis.config.ts' },
  // The scripts are built when their module loads: every mutant of their text is static, and is
  // tested by running test/redis/ with it (a killed one stops at the first failing test).
  ignoreStatic: false,
  incrementalFile: 'reports/stryker-redis-incremental.json',
  htmlReporter: { fileName: 'reports/mutation/redis.html' },
  jsonReporter: { fileName: 'reports/mutation/redis.json' },
};
