/**
 * The prebuilt workflow bundle: `npm run build` bundles the compiled workflow code once
 * (`dist/workflow-bundle.js`) with a manifest of what it was built from (`dist/workflow-bundle.json`:
 * each compiled module the workflows import, hashed, the interceptor modules, the SDK version, and the
 * release they make, src/workflow-code.ts). A worker loads the bundle when the manifest still matches the
 * compiled sources, and otherwise bundles in memory, saying in one line why; either way it runs under the
 * release of the code as it is. See docs/upgrading.md.
 */
import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { writeFileAtomic } from './fs/atomic.js';
import { sha256 } from './fs/digest.js';
import { packageRoot } from './paths.js';
import { codeManifest, releaseOfCode, type CodeManifest, type CodeSpec } from './workflow-code.js';

/** Where the prebuilt bundle and its manifest live under a package root. */
export const bundlePath = (root = packageRoot()) => join(root, 'dist', 'workflow-bundle.js');
export const manifestPath = (root = packageRoot()) => join(root, 'dist', 'workflow-bundle.json');

export interface BundleManifest extends CodeManifest {
  /** The release of the code bundled (src/workflow-code.ts): the build ID a worker running it names. */
  release: string;
  /** The bundle file's SHA-256. */
  bundle: string;
}

export interface LoadedBundle {
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  /** The release of the code loaded (its build ID), whether prebuilt or bundled now. */
  release: string;
  /** Why the workflows were bundled at start; undefined when the prebuilt bundle was loaded. */
  bundledBecause?: string;
  /** Time spent bundling or checking, in milliseconds. */
  ms: number;
}

type Logger = Parameters<typeof bundleWorkflowCode>[0]['logger'];

/** The bundler says every module it packs at info level: only its warnings and errors are worth a line. */
const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn: (message: string) => process.stderr.write(`workflow bundle: ${message}\n`),
  error: (message: string) => process.stderr.write(`workflow bundle: ${message}\n`),
} as unknown as Logger;

const fromRoot = (root: string, path: string) => (isAbsolute(path) ? relative(root, path) : path);

/** Bundles the workflow code in memory with its interceptors. */
export async function bundleWorkflows(spec: CodeSpec, logger: Logger = quietLogger): Promise<{ code: string }> {
  return bundleWorkflowCode({ workflowsPath: spec.workflowsPath, workflowInterceptorModules: spec.workflowInterceptorModules, logger });
}

/** Bundles the compiled workflows and writes the bundle and its manifest under dist/ (each written whole). */
export async function writeWorkflowBundle(spec: CodeSpec): Promise<BundleManifest> {
  const manifest = await codeManifest(spec);
  const { code } = await bundleWorkflows(spec);
  const written: BundleManifest = { ...manifest, release: releaseOfCode(manifest), bundle: sha256(code) };
  await writeFileAtomic(bundlePath(spec.root), code);
  await writeFileAtomic(manifestPath(spec.root), `${JSON.stringify(written, null, 2)}\n`);
  return written;
}

/** Why the prebuilt bundle does not fit the code as it is now (the phrase a worker says before bundling, or undefined when it fits). */
async function misfit(spec: CodeSpec, now: CodeManifest): Promise<string | undefined> {
  const root = spec.root ?? packageRoot();
  const bundle = bundlePath(root);
  const manifest = manifestPath(root);
  if (spec.workflowsPath.endsWith('.ts')) return 'running from the TypeScript sources';
  if (!existsSync(manifest) || !existsSync(bundle)) return `no prebuilt workflow bundle (${fromRoot(root, bundle)}; \`npm run build\` writes it)`;
  let recorded: BundleManifest;
  try {
    recorded = JSON.parse(await readFile(manifest, 'utf8')) as BundleManifest;
  } catch {
    return `workflow bundle out of date (${fromRoot(root, manifest)} is not JSON)`;
  }
  if (recorded.sdk !== now.sdk) return `workflow bundle out of date (built for @temporalio/workflow ${recorded.sdk}, ${now.sdk} is installed)`;
  if (JSON.stringify(recorded.interceptors) !== JSON.stringify(now.interceptors)) return 'workflow bundle out of date (the workflow interceptors changed)';
  const moved = Object.keys(now.packages).find((name) => recorded.packages?.[name] !== now.packages[name]);
  if (moved !== undefined)
    return `workflow bundle out of date (built with ${moved} ${recorded.packages?.[moved] ?? '(not imported then)'}, ${now.packages[moved]} is installed)`;
  const paths = new Set([...Object.keys(recorded.sources ?? {}), ...Object.keys(now.sources)]);
  const changed = [...paths].filter((path) => recorded.sources?.[path] !== now.sources[path]).sort();
  if (changed.length > 0) return `workflow bundle out of date (${changed[0]}${changed.length > 1 ? ` and ${changed.length - 1} more` : ''} changed)`;
  if (recorded.release !== releaseOfCode(now)) return `workflow bundle out of date (${fromRoot(root, manifest)} names another release)`;
  if (sha256(await readFile(bundle)) !== recorded.bundle) return `workflow bundle out of date (${fromRoot(root, bundle)} does not match its manifest)`;
  return undefined;
}

/** Why the prebuilt bundle does not fit the installed code, as the phrase a worker says before bundling, or undefined when it fits. */
export async function staleness(spec: CodeSpec): Promise<string | undefined> {
  return misfit(spec, await codeManifest(spec));
}

/** The workflow code a worker runs: the prebuilt bundle when it matches the compiled sources, else bundled now (and why). */
export async function loadWorkflowBundle(spec: CodeSpec, sayBundling: (because: string) => void = () => undefined): Promise<LoadedBundle> {
  const started = Date.now();
  const now = await codeManifest(spec);
  const release = releaseOfCode(now);
  const because = await misfit(spec, now);
  if (because === undefined) return { workflowBundle: { codePath: bundlePath(spec.root) }, release, ms: Date.now() - started };
  sayBundling(because);
  const { code } = await bundleWorkflows(spec);
  return { workflowBundle: { code }, release, bundledBecause: because, ms: Date.now() - started };
}
