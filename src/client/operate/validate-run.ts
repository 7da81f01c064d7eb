import path from 'node:path';
import { findCheckout } from '../../checkout/index.js';
import { validateDraft, type DraftReport } from '../../kb/draft.js';
import { KbError } from '../../kb/errors.js';
import { hasFailures, summarize } from '../../kb/findings.js';
import { formatDraftHuman, formatFilesHuman } from '../../kb/format.js';
import { DISPOSITIONS, type Disposition } from '../../kb/layouts.js';
import { publishedArtifactsOf, validatePublished } from '../../kb/published.js';
import { TypeRegistry } from '../../kb/type-registry.js';
import { collectFiles, validateFiles, type ValidationReport } from '../../kb/validate.js';
import { calibrationFindings } from '../../review/compare/calibration-files.js';
import { UserError } from '../shared/errors.js';
import { printJson } from '../shared/json-output.js';

export interface ValidateOptions {
  artifact?: string;
  role?: string;
  layout?: string;
  disposition?: string;
  json?: boolean;
  verbose?: boolean;
  kb?: string;
}

const DRAFT_USAGE = 'commonplace validate <draft> --artifact <dir> --role <role>';

/** Validates files of the KB, or one draft in its role; a KB's own error (no checkout, a bad layout) is one line, exit 1. */
export async function runValidate(targets: string[], options: ValidateOptions): Promise<void> {
  try {
    await validate(targets, options);
  } catch (error) {
    if (error instanceof KbError) throw new UserError(error.message);
    throw error;
  }
}

async function validate(targets: string[], options: ValidateOptions): Promise<void> {
  const cwd = process.cwd();
  const draftMode = options.artifact !== undefined || options.role !== undefined;
  if (!draftMode && (options.layout !== undefined || options.disposition !== undefined)) {
    throw new UserError(`--layout and --disposition apply to draft validation: ${DRAFT_USAGE}`);
  }
  if (draftMode) {
    if (options.artifact === undefined || options.role === undefined) {
      throw new UserError(`--artifact and --role go together: ${DRAFT_USAGE}`);
    }
    if (targets.length !== 1) {
      throw new UserError(`draft validation takes exactly one draft file, got ${targets.length}: ${DRAFT_USAGE}`);
    }
    const disposition = options.disposition;
    if (disposition !== undefined && !(DISPOSITIONS as readonly string[]).includes(disposition)) {
      throw new UserError(`--disposition must be one of ${DISPOSITIONS.join(', ')}, got ${disposition}`);
    }
    const checkout = findCheckout(cwd, options.kb);
    const report = await validateDraft({
      repoRoot: checkout.root,
      draft: path.resolve(cwd, targets[0] as string),
      artifact: path.resolve(cwd, options.artifact),
      role: options.role,
      ...(options.layout === undefined ? {} : { layout: path.resolve(cwd, options.layout) }),
      ...(disposition === undefined ? {} : { disposition: disposition as Disposition }),
    });
    if (options.json) printJson('validate-draft', 1, draftDocument(report));
    else process.stdout.write(formatDraftHuman(report));
    process.exitCode = hasFailures(report.findings) ? 1 : 0;
    return;
  }
  const checkout = findCheckout(cwd, options.kb);
  const files = await collectFiles(
    checkout.root,
    targets.map((target) => againstKb(target, checkout.root, options.kb)),
    cwd,
  );
  const registry = new TypeRegistry(checkout.root);
  const report = await withPublished(await validateFiles(files, { repoRoot: checkout.root, registry, calibration: calibrationFindings }), registry);
  if (options.json) printJson('validate-files', 1, filesDocument(report));
  else process.stdout.write(formatFilesHuman(report, { verbose: options.verbose ?? false }));
  process.exitCode = report.summary.failures > 0 ? 1 : 0;
}

/**
 * A relative target run from outside the checkout that `--kb` names is a path of that checkout
 * (`validate --kb ~/notes kb/notes/x.md`), unless it names a place inside it from here already.
 */
function againstKb(target: string, root: string, kb: string | undefined): string {
  if (kb === undefined || path.isAbsolute(target)) return target;
  const inside = (dir: string) => !path.relative(root, dir).startsWith('..') && !path.isAbsolute(path.relative(root, dir));
  return inside(process.cwd()) || inside(path.resolve(target)) ? target : path.join(root, target);
}

/** The body of `validate-files` v1 (docs/schemas/validate-files.v1.schema.json). */
function filesDocument(report: ValidationReport): object {
  return {
    mode: 'files',
    root: report.root,
    summary: report.summary,
    files: report.results.map((result) => ({
      file: result.file,
      kind: result.kind,
      ...(result.type !== undefined && { type: result.type }),
      findings: result.findings,
    })),
  };
}

/** The body of `validate-draft` v1 (docs/schemas/validate-draft.v1.schema.json). */
function draftDocument(report: DraftReport): object {
  const summary = summarize([report.result]);
  return {
    mode: 'draft',
    draft: report.draft,
    artifact: report.artifact,
    role: report.role,
    rolePath: report.rolePath,
    layout: report.layout,
    disposition: report.disposition,
    summary: { failures: summary.failures, warnings: summary.warnings },
    omitted: report.omitted,
    findings: report.findings,
  };
}

/** Published artifacts among the files are validated whole: their members' results carry the layout's relations too, and their manifest is checked. */
async function withPublished(report: ValidationReport, registry: TypeRegistry): Promise<ValidationReport> {
  const dirs = await publishedArtifactsOf(
    report.root,
    report.results.map((result) => result.file),
  );
  if (dirs.length === 0) return report;
  const byFile = new Map(report.results.map((result) => [result.file, result]));
  for (const dir of dirs) {
    for (const result of await validatePublished(report.root, dir, registry)) byFile.set(result.file, result);
  }
  const results = [...byFile.values()].sort((a, b) => a.file.localeCompare(b.file));
  return { ...report, results, summary: summarize(results) };
}
