// Lint: typescript-eslint with type information, run by `npm run lint` and by .ci/run before the
// tests (any finding fails CI). The type-aware rules are the ones that catch real bugs in async
// server code: a promise nobody awaits or catches, a promise passed where a callback's return is
// ignored, awaiting a non-promise, a switch that forgets a member of a union, unused code.
// Formatting is Prettier's job (`npm run format:check`), so no stylistic rules here.
// `any` is allowed: it appears at JSON boundaries (test response bodies, Kysely<any> in migrations)
// where the value is checked by a schema or an assertion right after.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The editors' console's browser script is plain JavaScript without a TypeScript project (checked by
  // the console's browser test and its Content-Security-Policy test).
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'test-output/**', 'eslint.config.js', '.dependency-cruiser.cjs', 'src/editor/assets/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/no-explicit-any': 'off',
      // Input validation refuses control characters on purpose (NUL cannot be stored in PostgreSQL text).
      'no-control-regex': 'off',
    },
  },
  // House style (docs/architecture.md): a function in the service's code reads on one screen. Route
  // factories compose one small function per route; long flows are split into named steps.
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
);
