/**
 * The prebuilt workflow bundle: `npm run build` bundles the compiled workflow code once
 * (`dist/workflow-bundle.js`) with a manifest of what it was built from (`dist/workflow-bundle.json`:
 * each compiled module the workflows import, hashed, the interceptor modules and the SDK version). A
 * worker loads the bundle when the manifest still matches the compiled sources, and otherwise bundles
 * in memory, saying in one line why. See docs/upgrading.md.
 */
import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { writeFileAtomic } from './fs/atomic.js';
import { sha256 } from './fs/digest.js';
import { packageRoot } from './paths.js';

/** Where the prebuilt bundle and its manifest live under a package root. */
export const bundlePath = (root = packageRoot()) => join(root, 'dist', 'workflow-bundle.js');
export const manifestPath = (root = packageRoot()) => join(root, 'dist', 'workflow-bundle.json');

export interface BundleManifest {
  /** The @temporalio/workflow version whose runtime the bundle carries. */
  sdk: string;
  /** Each package the compiled modules import (a bare specifier's package name): its installed version. */
  packages: Record<string, string>;
  /** The workflow interceptor modules bundled, relative to the package root (a package name as is). */
  interceptors: string[];
  /** Every compiled module the workflow entry and the interceptors import (relative imports, followed), by path from the package root: its SHA-256. */
  sources: Record<string, string>;
  /** The bundle file's SHA-256. */
  bundle: string;
}

export interface BundleSpec {
  workflowsPath: string;
  workflowInterceptorModules: string[];
  /** The package root whose dist/ holds the bundle; the installed package's by default. */
  root?: string;
}

export interface LoadedBundle {
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
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

/** The version of a package installed beside this one. */
function installedVersion(name: string): string {
  const manifest = join(packageRoot(), 'node_modules', ...name.split('/'), 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : 'not installed';
}

const imported = /(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"]+)['"]/g;
/** A bare specifier's package: `@scope/name` or `name`, without a subpath. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * Every local module reachable from the entries by relative imports, hashed, and the packages they import
 * with their installed versions: what a bundle built from them depends on.
 */
export async function workflowSources(entries: string[], root = packageRoot()): Promise<{ sources: Record<string, string>; packages: Record<string, string> }> {
  const sources: Record<string, string> = {};
  const packages = new Set<string>();
  const queue = entries.filter((entry) => isAbsolute(entry));
  const seen = new Set<string>(queue);
  while (queue.length > 0) {
    const file = queue.shift()!;
    const text = await readFile(file, 'utf8');
    sources[fromRoot(root, file)] = sha256(text);
    for (const match of text.matchAll(imported)) {
      const specifier = match[1]!;
      if (!specifier.startsWith('.')) {
        if (!specifier.startsWith('node:')) packages.add(packageOf(specifier));
        continue;
      }
      let target = resolve(dirname(file), specifier);
      // The test runner's sources import './x.js' meaning './x.ts'.
      if (!existsSync(target) && target.endsWith('.js')) target = `${target.slice(0, -3)}.ts`;
      if (!seen.has(target) && existsSync(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return {
    sources: Object.fromEntries(Object.entries(sources).sort(([a], [b]) => a.localeCompare(b))),
    packages: Object.fromEntries([...packages].sort().map((name) => [name, installedVersion(name)])),
  };
}

/** The manifest the sources would give now (its bundle digest left empty). */
async function currentManifest(spec: BundleSpec): Promise<Omit<BundleManifest, 'bundle'>> {
  const root = spec.root ?? packageRoot();
  return {
    sdk: installedVersion('@temporalio/workflow'),
    interceptors: spec.workflowInterceptorModules.map((path) => fromRoot(root, path)),
    ...(await workflowSources([spec.workflowsPath, ...spec.workflowInterceptorModules], root)),
  };
}

/** Bundles the workflow code in memory with its interceptors. */
export async function bundleWorkflows(spec: BundleSpec, logger: Logger = quietLogger): Promise<{ code: string }> {
  return bundleWorkflowCode({ workflowsPath: spec.workflowsPath, workflowInterceptorModules: spec.workflowInterceptorModules, logger });
}

/** Bundles the compiled workflows and writes the bundle and its manifest under dist/ (each written whole). */
export async function writeWorkflowBundle(spec: BundleSpec): Promise<BundleManifest> {
  const manifest = await currentManifest(spec);
  const { code } = await bundleWorkflows(spec);
  const written: BundleManifest = { ...manifest, bundle: sha256(code) };
  await writeFileAtomic(bundlePath(spec.root), code);
  await writeFileAtomic(manifestPath(spec.root), `${JSON.stringify(written, null, 2)}\n`);
  return written;
}

/** Why the prebuilt bundle does not fit the installed code, as the phrase a worker says before bundling, or undefined when it fits. */
export async function staleness(spec: BundleSpec): Promise<string | undefined> {
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
  const now = await currentManifest(spec);
  if (recorded.sdk !== now.sdk) return `workflow bundle out of date (built for @temporalio/workflow ${recorded.sdk}, ${now.sdk} is installed)`;
  if (JSON.stringify(recorded.interceptors) !== JSON.stringify(now.interceptors)) return 'workflow bundle out of date (the workflow interceptors changed)';
  const moved = Object.keys(now.packages).find((name) => recorded.packages?.[name] !== now.packages[name]);
  if (moved !== undefined)
    return `workflow bundle out of date (built with ${moved} ${recorded.packages?.[moved] ?? '(not imported then)'}, ${now.packages[moved]} is installed)`;
  const paths = new Set([...Object.keys(recorded.sources ?? {}), ...Object.keys(now.sources)]);
  const changed = [...paths].filter((path) => recorded.sources?.[path] !== now.sources[path]).sort();
  if (changed.length > 0) return `workflow bundle out of date (${changed[0]}${changed.length > 1 ? ` and ${changed.length - 1} more` : ''} changed)`;
  if (sha256(await readFile(bundle)) !== recorded.bundle) return `workflow bundle out of date (${fromRoot(root, bundle)} does not match its manifest)`;
  return undefined;
}

/** The workflow code a worker runs: the prebuilt bundle when it matches the compiled sources, else bundled now (and why). */
export async function loadWorkflowBundle(spec: BundleSpec, sayBundling: (because: string) => void = () => undefined): Promise<LoadedBundle> {
  const started = Date.now();
  const because = await staleness(spec);
  if (because === undefined) return { workflowBundle: { codePath: bundlePath(spec.root) }, ms: Date.now() - started };
  sayBundling(because);
  const { code } = await bundleWorkflows(spec);
  return { workflowBundle: { code }, bundledBecause: because, ms: Date.now() - started };
}
