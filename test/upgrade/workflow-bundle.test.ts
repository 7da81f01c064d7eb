import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { bundlePath, loadWorkflowBundle, manifestPath, staleness, writeWorkflowBundle, type BundleManifest } from '../../src/workflow-bundle.js';
import { RELEASE } from '../../src/release.js';
import { codeManifest, releaseOfCode, type CodeSpec } from '../../src/workflow-code.js';
import { testRelease } from '../helpers/temporal.js';

/** A package root of its own under the checkout (so the bundler finds node_modules), with compiled workflow code in dist/. */
async function compiledPackage(): Promise<{ root: string; spec: CodeSpec }> {
  await mkdir(join(packageRoot(), '.commonplace', 'test'), { recursive: true });
  const root = await mkdtemp(join(packageRoot(), '.commonplace', 'test', 'bundle-'));
  const src = join(root, 'dist', 'src');
  await mkdir(join(src, 'workflows'), { recursive: true });
  await writeFile(join(src, 'workflows', 'index.js'), "export { greet } from './greet.js';\n");
  await writeFile(
    join(src, 'workflows', 'greet.js'),
    "import { sleep } from '@temporalio/workflow';\nimport { word } from '../words.js';\nexport async function greet() {\n  await sleep(1);\n  return word;\n}\n",
  );
  await writeFile(join(src, 'words.js'), "export const word = 'hello';\n");
  await writeFile(join(src, 'workflows', 'interceptors.js'), 'export const interceptors = () => ({ inbound: [], outbound: [] });\n');
  await writeFile(join(src, 'unrelated.js'), "export const other = 'not imported by a workflow';\n");
  return { root, spec: { root, workflowsPath: join(src, 'workflows', 'index.js'), workflowInterceptorModules: [join(src, 'workflows', 'interceptors.js')] } };
}

test('the build bundle fits the compiled code it was built from, and a worker loads it by path without bundling', async () => {
  const { root, spec } = await compiledPackage();
  try {
    expect(await staleness(spec)).toBe('no prebuilt workflow bundle (dist/workflow-bundle.js; `npm run build` writes it)');
    const manifest = await writeWorkflowBundle(spec);
    expect(Object.keys(manifest.sources)).toEqual([
      'dist/src/words.js',
      'dist/src/workflows/greet.js',
      'dist/src/workflows/index.js',
      'dist/src/workflows/interceptors.js',
    ]);
    expect(manifest.interceptors).toEqual(['dist/src/workflows/interceptors.js']);
    expect(Object.keys(manifest.packages)).toEqual(['@temporalio/workflow']);
    expect(JSON.parse(await readFile(manifestPath(root), 'utf8'))).toEqual(manifest);
    expect(await readFile(bundlePath(root), 'utf8')).toContain('interceptors.js');
    expect(await staleness(spec)).toBeUndefined();
    const loaded = await loadWorkflowBundle(spec, () => {
      throw new Error('bundled although the prebuilt bundle fits');
    });
    expect(loaded.workflowBundle).toEqual({ codePath: bundlePath(root) });
    expect(loaded.bundledBecause).toBeUndefined();
    // The release names the code: this version and the digest of what the bundle was built from.
    expect(manifest.release).toMatch(new RegExp(`^${RELEASE.replace(/\./g, '\\.')}\\+[0-9a-f]{64}$`));
    expect(loaded.release).toBe(manifest.release);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a compiled module a workflow imports that changed after the build makes a worker bundle at start, saying which module changed', async () => {
  const { root, spec } = await compiledPackage();
  try {
    const built = await writeWorkflowBundle(spec);
    await writeFile(join(root, 'dist', 'src', 'unrelated.js'), "export const other = 'changed, but no workflow imports it';\n");
    expect(await staleness(spec)).toBeUndefined();
    await writeFile(join(root, 'dist', 'src', 'words.js'), "export const word = 'changed';\n");
    const said: string[] = [];
    const loaded = await loadWorkflowBundle(spec, (because) => said.push(because));
    expect(said).toEqual(['workflow bundle out of date (dist/src/words.js changed)']);
    expect(loaded.bundledBecause).toBe('workflow bundle out of date (dist/src/words.js changed)');
    expect('code' in loaded.workflowBundle && loaded.workflowBundle.code).toContain("'changed'");
    // Code bundled at start runs under its own release, the one its sources make as they are.
    expect(loaded.release).not.toBe(built.release);
    expect(loaded.release).toBe(releaseOfCode(await codeManifest(spec)));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a bundle file that is not the one its manifest recorded, or built with other package versions, is not loaded', async () => {
  const { root, spec } = await compiledPackage();
  try {
    await writeWorkflowBundle(spec);
    const manifest = JSON.parse(await readFile(manifestPath(root), 'utf8')) as BundleManifest;
    await writeFile(bundlePath(root), '// truncated\n');
    expect(await staleness(spec)).toBe('workflow bundle out of date (dist/workflow-bundle.js does not match its manifest)');
    await writeFile(manifestPath(root), JSON.stringify({ ...manifest, sdk: '0.0.1' }));
    expect(await staleness(spec)).toMatch(/^workflow bundle out of date \(built for @temporalio\/workflow 0\.0\.1, \d+\.\d+\.\d+ is installed\)$/);
    await writeFile(manifestPath(root), JSON.stringify({ ...manifest, packages: { '@temporalio/workflow': '0.0.2' } }));
    expect(await staleness(spec)).toMatch(/^workflow bundle out of date \(built with @temporalio\/workflow 0\.0\.2, \d+\.\d+\.\d+ is installed\)$/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("the installed build carries a bundle that fits the compiled workflows and their interceptors, under the release the CLI's client computes for them", async () => {
  const dist = join(packageRoot(), 'dist', 'src', 'workflows');
  const spec = { workflowsPath: join(dist, 'index.js'), workflowInterceptorModules: [join(dist, 'interceptors.js')] };
  expect(await staleness(spec)).toBeUndefined();
  const manifest = JSON.parse(await readFile(manifestPath(), 'utf8')) as BundleManifest;
  // What the compiled src/workflow-code.js computes in the CLI's process: the installed code's release.
  const { installedRelease } = (await import(join(packageRoot(), 'dist', 'src', 'workflow-code.js'))) as { installedRelease: () => Promise<string> };
  expect(await installedRelease()).toBe(manifest.release);
  expect(manifest.interceptors).toEqual(['dist/src/workflows/interceptors.js']);
  expect(Object.keys(manifest.sources)).toEqual(
    expect.arrayContaining(['dist/src/workflows/index.js', 'dist/src/workflows/interceptors.js', 'dist/src/workflows/quota-gate.js']),
  );
});

test("the test bundle's release, written by the global setup, is the one its sources make (the test clients stamp it, the test workers run under it)", async () => {
  const spec = {
    workflowsPath: join(packageRoot(), 'src', 'workflows', 'index.ts'),
    workflowInterceptorModules: [join(packageRoot(), 'src', 'workflows', 'interceptors.ts'), join(packageRoot(), 'test', 'helpers', 'scaled-clock.ts')],
  };
  expect(testRelease()).toBe(releaseOfCode(await codeManifest(spec)));
});
