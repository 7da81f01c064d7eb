// Once per test run: the pinned Temporal binaries installed, the workflows bundled once (each test
// worker loads the bundle instead of running webpack again), the fault worker bundled into one file
// (test/helpers/faults.ts starts it: a process of its own loads one module, not the TypeScript sources
// through tsx, which cost more than half of its start), and one dev server per jest worker
// (test/helpers/dev-servers.js; the global teardown stops them), and the third-party packages of many small
// modules bundled one file each for the test files (test/helpers/dependency-bundles.js). The test bundle alone
// carries the scaled clock (test/helpers/scaled-clock.ts), which only runs whose memo asks for it use; its release
// (src/workflow-code.ts, from the same sources) is written beside it, for the test workers to run under and the
// test clients to stamp (test/helpers/temporal.ts). The host's
// record of named checkouts (src/checkout/) goes to a fresh XDG_STATE_HOME, never the real home.
import { bundleWorkflowCode } from '@temporalio/worker';
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { bundleDependencies } from './dependency-bundles.js';
import { startDevServers } from './dev-servers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

export default async function globalSetup(globalConfig) {
  // Set before anything starts: test workers, the CLI processes they run and the shells they paste into inherit it.
  if (!process.env.XDG_STATE_HOME) {
    process.env.XDG_STATE_HOME = mkdtempSync(join(tmpdir(), 'commonplace-state-'));
    globalThis.commonplaceStateHome = process.env.XDG_STATE_HOME;
  }
  execFileSync('bash', [join(root, 'temporal', 'install.sh')], { stdio: 'inherit' });
  const spec = {
    workflowsPath: join(root, 'src', 'workflows', 'index.ts'),
    workflowInterceptorModules: [join(root, 'src', 'workflows', 'interceptors.ts'), join(root, 'test', 'helpers', 'scaled-clock.ts')],
  };
  const { code } = await bundleWorkflowCode({ ...spec, logger: quiet });
  // The release as the CLI and the workers compute it, from the same module (a TypeScript source: loaded through tsx).
  const { codeManifest, releaseOfCode } = await tsImport('../../src/workflow-code.ts', import.meta.url);
  const release = releaseOfCode(await codeManifest({ ...spec, root }));
  mkdirSync(join(root, '.commonplace', 'test'), { recursive: true });
  // Each written whole, then renamed: a run that starts beside another never loads half a bundle.
  const written = { 'workflow-bundle.js': code, 'workflow-bundle.json': `${JSON.stringify({ release })}\n` };
  for (const [name, text] of Object.entries(written)) {
    const file = join(root, '.commonplace', 'test', name);
    writeFileSync(`${file}.${process.pid}`, text);
    renameSync(`${file}.${process.pid}`, file);
  }
  // The fault worker's sources as one ES module; its packages stay imports, resolved from node_modules as the CLI's are.
  const faultWorker = join(root, '.commonplace', 'test', 'fault-worker.mjs');
  await build({
    entryPoints: [join(root, 'test', 'helpers', 'fault-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: `${faultWorker}.${process.pid}`,
    logLevel: 'warning',
  });
  renameSync(`${faultWorker}.${process.pid}`, faultWorker);
  // A script (test/histories/record.ts) wants the bundle alone: its runs start servers of their own.
  if (globalConfig === undefined) return;
  // The packages of many small modules, one file each for the test files to load (test/helpers/dependency-bundles.js).
  await bundleDependencies(root);
  // Workers are started after this returns, and inherit the variable; the teardown reads the global.
  const servers = await startDevServers(root, Math.max(1, globalConfig.maxWorkers ?? 1));
  globalThis.commonplaceDevServers = servers;
  process.env.COMMONPLACE_TEST_DEV_SERVERS = servers.addresses.join(',');
}
