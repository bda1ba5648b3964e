import { defineConfig } from 'vitest/config';
import fast from '../vitest.config.js';

/**
 * The fast tier's files that own the mutated modules, for mutation testing
 * (stryker.config.mjs): the transport pipeline (test/core/), the receiving side
 * (test/webhooks/) and the client against the sandbox (test/e2e/). The resources', the
 * sandbox's and the contract tests reach these modules only through them, and would make every
 * surviving mutant cost a run of the whole tier.
 */
export default defineConfig({
  ...fast,
  test: {
    ...fast.test,
    include: ['test/core/**/*.test.ts', 'test/webhooks/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    // CPU time over megabytes of header: under Stryker's instrumentation it outlasts any timeout.
    // The parser's mutants it would kill are listed in equivalent-mutants.md.
    exclude: [...(fast.test?.exclude ?? []), 'test/webhooks/header-parsing-cost.test.ts'],
  },
});
