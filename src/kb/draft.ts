/**
 * Is this candidate acceptable as role R? Placed in a temporary copy of the artifact, validated whole, R's findings kept
 * (absent members dropped). The CLI, the workflow and a worker's self-check all call `validateDraft`, so they agree.
 */
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readRunValues, validateArtifact, type RunValuesSource } from './artifact.js';
import { KbError } from './errors.js';
import { relativeInside, toPosix } from './kb-path.js';
import type { FileResult, Finding } from './findings.js';
import { layoutRole, loadLayout, type Disposition, type Layout } from './layouts.js';
import { TypeRegistry } from './type-registry.js';

export interface DraftOptions {
  readonly repoRoot: string;
  /** The candidate file (absolute, or relative to the process's working directory). */
  readonly draft: string;
  /** The artifact directory the draft is a member of; it is only read. */
  readonly artifact: string;
  readonly role: string;
  /** The layout, loaded or as a path (repository-relative or absolute); otherwise the `layout` named in the run's parameters.json. */
  readonly layout?: Layout | string;
  readonly disposition?: Disposition;
  readonly registry?: TypeRegistry;
  /** Run values for identity checks; read from parameters.json in or beside the artifact when omitted. */
  readonly runValues?: RunValuesSource;
}

export interface DraftReport {
  /** The draft as reported in findings. */
  readonly draft: string;
  readonly artifact: string;
  readonly role: string;
  readonly rolePath: string;
  readonly layout: string;
  readonly disposition: Disposition;
  /** The findings attributed to the role, absent-member findings dropped. */
  readonly findings: readonly Finding[];
  /** What the working artifact reported that is not the role's: for the curious, never for the verdict. */
  readonly omitted: { readonly otherRoles: number; readonly absent: number; readonly unattributed: number };
  /** The draft's findings as one file result, for output. */
  readonly result: FileResult;
}

/** Validates a candidate in its role against the artifact as it stands, without writing to the artifact. */
export async function validateDraft(options: DraftOptions): Promise<DraftReport> {
  const root = path.resolve(options.repoRoot);
  const artifactDir = path.resolve(options.artifact);
  const draftFile = path.resolve(options.draft);
  if (!(await stat(artifactDir).catch(() => undefined))?.isDirectory()) {
    throw new KbError('artifact-not-found', `--artifact ${options.artifact}: no such artifact directory`);
  }
  const bytes = (await stat(draftFile).catch(() => undefined))?.isFile() ? await readFile(draftFile).catch(() => undefined) : undefined;
  if (bytes === undefined) throw new KbError('path-not-found', `${options.draft}: no such draft file`);

  const runValues = options.runValues ?? (await readRunValues(artifactDir));
  const layout = await resolveLayout(options.layout, runValues, root);
  const role = layoutRole(layout, options.role);
  const registry = options.registry ?? new TypeRegistry(root);
  const unavailable = await registry.prepare(role.type, role.typeWritten);
  if (unavailable !== undefined) throw new KbError('type-unavailable', `role ${role.name} cannot be validated: ${unavailable.message}`);

  const location = relativeInside(root, artifactDir) || undefined;
  const displayArtifact = location ?? toPosix(artifactDir);
  const displayDraft = relativeInside(root, draftFile) || toPosix(draftFile);
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'commonplace-draft-'));
  try {
    const working = path.join(scratch, 'artifact');
    await cp(artifactDir, working, { recursive: true, errorOnExist: false, force: true });
    const target = path.join(working, ...role.path.split('/'));
    await rm(target, { recursive: true, force: true });
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, bytes);

    const report = await validateArtifact(working, {
      repoRoot: root,
      layout,
      registry,
      ...(options.disposition === undefined ? {} : { disposition: options.disposition }),
      runValues,
      display: { artifact: displayArtifact, members: { [role.path]: displayDraft } },
      ...(location !== undefined && { location }),
    });

    const mine = report.findings.filter((finding) => finding.role === role.name);
    const findings = mine.filter((finding) => finding.absent !== true);
    return {
      draft: displayDraft,
      artifact: displayArtifact,
      role: role.name,
      rolePath: role.path,
      layout: layout.file,
      disposition: report.disposition,
      findings,
      omitted: {
        otherRoles: report.findings.filter((finding) => finding.role !== undefined && finding.role !== role.name).length,
        absent: mine.length - findings.length,
        unattributed: report.findings.filter((finding) => finding.role === undefined).length,
      },
      result: { file: displayDraft, kind: 'note', type: role.type, findings },
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function resolveLayout(layout: Layout | string | undefined, runValues: RunValuesSource, root: string): Promise<Layout> {
  if (typeof layout === 'object') return layout;
  if (typeof layout === 'string') return loadLayout(layout, root);
  if (runValues.kind === 'found' && typeof runValues.values['layout'] === 'string') return loadLayout(runValues.values['layout'], root);
  const where = runValues.kind === 'found' ? `${runValues.file} names no \`layout\`` : 'no parameters.json was found in or beside the artifact';
  throw new KbError('usage', `cannot tell the artifact's layout: ${where}; pass --layout FILE`);
}
