// Lint: typescript-eslint's recommended rules everywhere, and the determinism rule for workflow code:
// nothing under src/workflows/ may import a Node built-in, or an activity module except as a type.
import js from '@eslint/js';
import globals from 'globals';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.commonplace/', '.tools/', 'coverage/', 'test/fixtures/', 'test/histories/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: [
      'src/workflows/**/*.ts',
      'src/kb/verification.ts',
      'src/search-attributes.ts',
      'src/review/result-line.ts',
      'src/review/paths.ts',
      'src/review/sweep-types.ts',
      'src/review/edit/{selection,plan-types,types,identity,decision,diff,guard}.ts',
      'src/analysis/{plan,prompt,progress,manifest,run-id,roles,checks,records,job,decisions}.ts',
      'src/runs/*.ts',
      'src/harness/launch-contract.ts',
      'src/harness/executor.ts',
      'src/review/breaker.ts',
      'src/review/edit/approval-key.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code is deterministic: do I/O in an activity.' })),
          patterns: [
            {
              group: ['**/activities/**', '!**/activities/index.js'],
              message: 'Workflows import activities only as types, through the barrel.',
              allowTypeImports: true,
            },
            { group: ['**/activities/index.js'], message: 'Workflows import activities only as types.', allowTypeImports: true },
            {
              group: ['@temporalio/worker', '@temporalio/client', '@temporalio/activity', 'execa', 'ajv', 'ajv/*'],
              message: 'Not deterministic or not bundleable in workflow code.',
            },
          ],
        },
      ],
    },
  },
);
