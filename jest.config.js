/**
 * Jest runs the TypeScript sources as native ES modules (node --experimental-vm-modules),
 * transformed by @swc/jest — the same SWC the Temporal bundler uses for workflow code.
 * See docs/modules.md for why the project is ESM.
 *
 * Workers: COMMONPLACE_TEST_WORKERS (.ci/run sets it to the machine's cores), else one per core.
 */
import { availableParallelism } from 'node:os';

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/helpers/global-setup.js',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.js',
  testTimeout: 240000,
  maxWorkers: Number(process.env.COMMONPLACE_TEST_WORKERS) || availableParallelism(),
};
