import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import fast from './vitest.config.js';
import { integrationFiles, nodeSensitiveFiles } from './tiers.js';

/**
 * The integration tier, `npm run test:integration`: the files of test/tiers.ts, each driving a
 * real process or component. The global setup checks the system components first and fails the
 * run with their install command when one is missing (`npm run setup:system` installs them all).
 * `NODE_SENSITIVE_ONLY=1` narrows it to the files CI also runs on Node 22 and 24.
 */
export default defineConfig({
  ...fast,
  test: {
    ...fast.test,
    include: process.env.NODE_SENSITIVE_ONLY === '1' ? [...nodeSensitiveFiles] : [...integrationFiles],
    exclude: ['**/node_modules/**'],
    globalSetup: ['test/helpers/system-components.ts'],
    // One worker per core: these files start processes of their own (Redis servers, Chromium,
    // npm, other runtimes), and the fleet tests measure windows a starved process would miss.
    maxWorkers: Math.max(2, availableParallelism()),
    // Child processes, browsers and servers take longer to start on a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
