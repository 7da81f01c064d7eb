/**
 * Published artifacts in a KB: a directory holding a `manifest.json` that names its layout, its run
 * and its exact files. `commonplace validate` checks such a directory whole — each member by its
 * type, the layout's relations (cites, identity against the manifest's run values, verifies), and
 * the exact manifest (every listed file present with its SHA-256, no member the manifest omits).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256File } from '../fs/digest.js';
import { pathExists } from '../fs/exists.js';
import { cached } from './cached.js';
import { validateArtifact } from './artifact.js';
import type { FileResult, Finding } from './findings.js';
import { toPosix } from './kb-path.js';
import { DISPOSITIONS, loadLayout, type Disposition } from './layouts.js';
import type { TypeRegistry } from './type-registry.js';

/** The name of a published artifact's own manifest, beside its members. */
export const PUBLISHED_MANIFEST = 'manifest.json';

interface PublishedManifest {
  run: string;
  system: string;
  layout: string;
  disposition?: string;
  files: Record<string, string>;
}

function asPublished(value: unknown): PublishedManifest | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const candidate = value as Record<string, unknown>;
  if (typeof candidate.run !== 'string' || typeof candidate.layout !== 'string' || typeof candidate.files !== 'object' || candidate.files === null)
    return undefined;
  return candidate as unknown as PublishedManifest;
}

/** The published artifact directories (repository-relative) that hold any of these files. */
export async function publishedArtifactsOf(repoRoot: string, files: readonly string[]): Promise<string[]> {
  const dirs = new Set<string>();
  const seen = new Map<string, Promise<boolean>>();
  const isArtifact = (dir: string) =>
    readFile(path.join(repoRoot, dir, PUBLISHED_MANIFEST), 'utf8')
      .then((text) => asPublished(JSON.parse(text)) !== undefined)
      .catch(() => false);
  for (const file of files) {
    let dir = path.posix.dirname(file);
    while (dir !== '.' && dir !== '/') {
      if (await cached(seen, dir, isArtifact)) {
        dirs.add(dir);
        break;
      }
      dir = path.posix.dirname(dir);
    }
  }
  return [...dirs].sort();
}

/** Validates one published artifact whole: per member file its type and relation findings, and the manifest's own findings. */
export async function validatePublished(repoRoot: string, dir: string, registry: TypeRegistry): Promise<FileResult[]> {
  const manifestFile = `${dir}/${PUBLISHED_MANIFEST}`;
  const manifest = asPublished(JSON.parse(await readFile(path.join(repoRoot, manifestFile), 'utf8'))) as PublishedManifest;
  const manifestFindings: Finding[] = [];
  const fail = (message: string) => manifestFindings.push({ file: manifestFile, rule: 'manifest', severity: 'fail', message });
  let layout;
  try {
    layout = await loadLayout(manifest.layout, repoRoot);
  } catch (error) {
    fail(`the layout ${manifest.layout} the manifest names does not load: ${(error as Error).message}`);
    return [{ file: manifestFile, kind: 'manifest', findings: manifestFindings }];
  }
  for (const [member, digest] of Object.entries(manifest.files)) {
    const actual = await sha256File(path.join(repoRoot, dir, ...member.split('/'))).catch(() => undefined);
    if (actual === undefined) fail(`${member} is listed in the manifest but missing`);
    else if (actual !== digest) fail(`${member} changed since publication: sha256 ${actual.slice(0, 12)}, the manifest says ${digest.slice(0, 12)}`);
  }
  for (const role of layout.roles) {
    if (role.path in manifest.files) continue;
    if (await pathExists(path.join(repoRoot, dir, ...role.path.split('/'))))
      fail(`${role.path} (role ${role.name}) is in the artifact but not in its manifest`);
  }
  const disposition = (DISPOSITIONS as readonly string[]).includes(manifest.disposition ?? '') ? (manifest.disposition as Disposition) : undefined;
  const report = await validateArtifact(path.join(repoRoot, dir), {
    repoRoot,
    layout,
    registry,
    ...(disposition !== undefined && { disposition }),
    runValues: { kind: 'found', file: path.join(repoRoot, manifestFile), values: { run: manifest.run, system: manifest.system, layout: manifest.layout } },
    location: dir,
  });
  const toRepo = (file: string) => (path.isAbsolute(file) ? toPosix(path.relative(repoRoot, file)) : file);
  const results: FileResult[] = report.results
    .filter((result) => result.kind !== 'absent' || result.findings.length > 0)
    .map((result) => ({ ...result, file: toRepo(result.file), findings: result.findings.map((finding) => ({ ...finding, file: toRepo(finding.file) })) }));
  results.push({ file: manifestFile, kind: 'manifest', findings: manifestFindings });
  return results;
}
