/**
 * Mutation testing of the modules that guard money and events, against the fast tier's tests of
 * them (`npm run test:mutation`, scripts/mutation.mjs; docs/development.md, "Mutation testing").
 * The Redis side has its own configuration, stryker.redis.config.mjs, whose tests need a real
 * redis-server. Survivors that no test can kill are listed, with their reason, in
 * equivalent-mutants.md beside this file.
 */
export default {
  mutate: [
    // Idempotency keys, what may be retried, what a failed write's error says.
    'src/core/write-policy.ts',
    'src/core/retry.ts',
    // Why a call ended: signal, timeouts, deadline, the client's cut, admission.
    'src/core/call-lifetime.ts',
    // The answer: typed result or typed error.
    'src/core/envelope.ts',
    // The limiter in one process.
    'src/core/window-gate.ts',
    'src/core/rate-limit.ts',
    // Secrets kept out of errors and logs.
    'src/core/redact.ts',
    // Webhooks: each event handled once; only signed deliveries accepted.
    'src/webhooks/dedupe.ts',
    'src/webhooks/signature-check.ts',
    'src/webhooks/signature-header.ts',
    'src/webhooks/verify.ts',
    'src/webhooks/verify-async.ts',
    'src/webhooks/hmac.ts',
    'src/webhooks/hmac.web.ts',
  ],
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.ts', pool: 'forks', related: true },
  coverageAnalysis: 'perTest',
  // A mutant reached only outside any test (at import, in a beforeAll or afterAll hook, by work
  // left running after a test) would need the whole run reloaded for each: ignored, and reported
  // as such. \`npm run test:mutation -- --ignoreStatic false\` tests them too, for hours.
  ignoreStatic: true,
  // The machine has two cores, shared with the rest of a developer's work.
  concurrency: 2,
  // Many tests wait on loopback I/O and timers; a busy machine stretches them.
  timeoutMS: 15_000,
  timeoutFactor: 2,
  dryRunTimeoutMinutes: 20,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  thresholds: { high: 90, low: 80, break: null },
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
