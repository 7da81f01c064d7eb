/**
 * Which workflow code a worker runs, and its name: the release `<version>+<digest>` (src/release.ts), where the
 * digest is the SHA-256 of what a bundle of it is built from — the workflow SDK's version, the packages the
 * modules import, the interceptor modules, and each module the workflows and interceptors import, hashed. A
 * worker runs under it as its build ID, so each workflow task in a history names it; a client stamps it in the
 * memo of each run it starts. Both compute it from the same installed files, without bundling (docs/upgrading.md,
 * "What a release is"). No module of the worker's SDK: the CLI's client bundle loads this one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from './fs/digest.js';
import { packageRoot, sourceExtension } from './paths.js';
import { RELEASE } from './release.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The workflows the worker's `workflowsPath` points at: the compiled ones, or the TypeScript sources under the test runner. */
export const workflowsPath = join(here, 'workflows', `index${sourceExtension}`);
/** The workflow interceptors every bundle carries: the routing of checkout work to its checkout's queue, and the release boundary. */
export const workflowInterceptorModules = [join(here, 'workflows', `interceptors${sourceExtension}`)];

/** The Temporal worker deployment the project's workers name with their build ID (Worker Versioning's routing stays off). */
export const DEPLOYMENT_NAME = 'commonplace';

export interface CodeSpec {
  workflowsPath: string;
  workflowInterceptorModules: string[];
  /** The package root the paths are named from; the installed package's by default. */
  root?: string;
}

/** What a bundle of the workflow code is built from: the digest of this is the release's. */
export interface CodeManifest {
  /** The @temporalio/workflow version whose runtime the bundle carries. */
  sdk: string;
  /** Each package the modules import (a bare specifier's package name): its installed version. */
  packages: Record<string, string>;
  /** The workflow interceptor modules, relative to the package root. */
  interceptors: string[];
  /** Every module the workflow entry and the interceptors import (relative imports, followed), by path from the package root: its SHA-256. */
  sources: Record<string, string>;
}

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
async function workflowSources(entries: string[], root = packageRoot()): Promise<Pick<CodeManifest, 'sources' | 'packages'>> {
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

/** What the workflow code named by the spec is built from, as its files are now. */
export async function codeManifest(spec: CodeSpec): Promise<CodeManifest> {
  const root = spec.root ?? packageRoot();
  const { sources, packages } = await workflowSources([spec.workflowsPath, ...spec.workflowInterceptorModules], root);
  return {
    sdk: installedVersion('@temporalio/workflow'),
    packages,
    interceptors: spec.workflowInterceptorModules.map((path) => fromRoot(root, path)),
    sources,
  };
}

/** The release of the code a manifest describes: this version, and the digest of the manifest. */
export function releaseOfCode(manifest: CodeManifest): string {
  const { sdk, packages, interceptors, sources } = manifest;
  return `${RELEASE}+${sha256(JSON.stringify({ sdk, packages, interceptors, sources }))}`;
}

let installed: Promise<string> | undefined;
/** The release of the workflow code installed with this package (what `commonplace worker` runs), computed once a process. */
export function installedRelease(): Promise<string> {
  installed ??= codeManifest({ workflowsPath, workflowInterceptorModules }).then(releaseOfCode);
  return installed;
}
