// ESLint flat config: typescript-eslint's type-checked recommended rules over the whole tree, and
// eslint-plugin-regexp's recommended rules (with the linear-time ones) over src/.
// Each rule turned off or tuned below says why; everything else runs as recommended.
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Build output and test artifacts, including the benchmark's own build of the package, and the
  // reports and sandboxes of a mutation run (npm run test:mutation).
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'bench/.snapshot/**',
      'test-artifacts/**',
      'docs/reference/**',
      'reports/**',
      '.stryker-tmp*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore marks a binding left unused on purpose (a parameter that keeps a
      // signature, a property taken out of a rest spread).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Records are declared `interface Sim extends z.infer<ReturnType<typeof simSchema>> {}` so that editors and
      // declaration files show the name rather than the expanded object type; an interface
      // extending exactly one type is that idiom, anything emptier is still refused.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // A promise rejects with what was caught (`unknown`) or with an abort signal's `reason`
      // (`any`, as the DOM types it), passed on unchanged so callers see the original error;
      // literals and other non-errors are still refused.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      // `async` on a function that implements a promise-returning interface (a dedupe store, an
      // async iterator's `return`) makes every throw a rejection, which is the point; it does not
      // need an `await` to be right.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // `import { z } from 'zod'` reaches zod's namespace object, which a bundler cannot shake:
      // a Worker bundle of the client then carries every zod locale and the JSON Schema code
      // (measured with wrangler: 167 KiB gzip against 88 KiB with `import * as z`).
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z'][importKind!='type']",
          message: "Use `import * as z from 'zod'`, which bundlers can shake.",
        },
      ],
    },
  },
  {
    // The plugin's recommended rules over src/, plus one it leaves out: what the SDK and the
    // sandbox read (bodies, headers, paths, the request log, CLI arguments) must be read in
    // linear time, or one long input stalls a process every other request waits on.
    // no-super-linear-backtracking (recommended) refuses a pattern that backtracks on a long
    // input; no-super-linear-move refuses an unanchored one retried from every position of a
    // long run, such as a leading `[a-z]+` that rescans a long word from each of its letters.
    ...regexp.configs['flat/recommended'],
    files: ['src/**/*.ts'],
    rules: {
      ...regexp.configs['flat/recommended'].rules,
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON answers and raw wire bodies as they arrive (`any` from `res.json()`,
      // `JSON.parse`), precisely to check the shape without trusting the SDK's own types; parsing
      // each through a schema first would test the schema instead of the wire.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Some tests feed deliberately ill-typed input (`as any`) to check the runtime refusal.
      '@typescript-eslint/no-explicit-any': 'off',
      // Type tests and fixtures name methods without calling them (`expectTypeOf(client.x.list)`,
      // `const { counters } = sandbox`); nothing is invoked with a lost `this`.
      '@typescript-eslint/unbound-method': 'off',
      // Fetch stubs print the `RequestInfo` they are given; the SDK always passes a string or URL,
      // so `String(input)` is the URL (a test would fail on "[object Request]").
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // Plain JavaScript (this config, the .ci and bench CommonJS helpers) is outside the
    // TypeScript project and runs in Node.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
