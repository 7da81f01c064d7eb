/**
 * Jest runs the TypeScript sources as native ES modules (node --experimental-vm-modules),
 * transformed by @swc/jest — the same SWC the Temporal bundler uses for workflow code.
 * See docs/build.md for why the project is ESM.
 *
 * Workers: COMMONPLACE_TEST_WORKERS, else one more than the machine's cores: a file waiting on the server
 * (a kill test, a timer) leaves its core to the third worker's file. On the 2-core machine the whole suite took
 * 763 s of jest with three workers against about 990 s with two (docs/testing.md).
 *
 * A worker is replaced by a fresh one once a file leaves its heap over COMMONPLACE_TEST_WORKER_HEAP (default
 * 700 MB): a jest worker's heap grows by about 30 MB a file (each file loads its modules anew), and a worker
 * grown past a gigabyte pays for it in every collection and every process it spawns (fork copies its page
 * tables). With the limit the whole suite used a fifth less CPU (docs/testing.md, "A worker's heap").
 *
 * Third-party packages of many small modules (rxjs, ajv, grpc-js, execa, zod, …) load from one bundled file
 * each, written by the global setup: a test file loads about half as many modules (test/helpers/dependency-bundles.js).
 * The Temporal API's protobuf types are built once a jest worker, not once a file (test/helpers/test-environment.js).
 */
import { availableParallelism } from 'node:os';
import { dependencyMapper } from './test/helpers/dependency-bundles.js';
import { sharedMapper } from './test/helpers/shared-modules.js';

export default {
  testEnvironment: '<rootDir>/test/helpers/test-environment.js',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { ...dependencyMapper(), ...sharedMapper(), '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/helpers/global-setup.js',
  setupFiles: ['<rootDir>/test/helpers/process-hooks.js'],
  globalTeardown: '<rootDir>/test/helpers/global-teardown.js',
  testTimeout: 240000,
  maxWorkers: Number(process.env.COMMONPLACE_TEST_WORKERS) || availableParallelism() + 1,
  workerIdleMemoryLimit: process.env.COMMONPLACE_TEST_WORKER_HEAP || '700MB',
};
