import path from 'node:path';
import type { Command } from 'commander';
import { findCheckout } from '../kb/checkout.js';
import { validateDraft } from '../kb/draft.js';
import { KbError } from '../kb/errors.js';
import { hasFailures, summarize } from '../kb/findings.js';
import { formatDraftHuman, formatDraftJson, formatFilesHuman, formatFilesJson } from '../kb/format.js';
import { DISPOSITIONS, type Disposition } from '../kb/layouts.js';
import { publishedArtifactsOf, validatePublished } from '../kb/published.js';
import { TypeRegistry } from '../kb/types.js';
import { collectFiles, validateFiles, type ValidationReport } from '../kb/validate.js';
import { action, UserError } from './errors.js';

interface ValidateOptions {
  artifact?: string;
  role?: string;
  layout?: string;
  disposition?: string;
  json?: boolean;
  verbose?: boolean;
  kb?: string;
}

const DRAFT_USAGE = 'commonplace validate <draft> --artifact <dir> --role <role>';

/**
 * `commonplace validate`: the operator's and the worker's view of the same checks the
 * workflows run — files of the KB by their types, or one draft in its artifact role.
 * Exit 0 when clean or only warnings, 1 with failures, 2 for a usage error.
 */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('validate notes, schemas and layouts (default: all of kb/), or a draft in its role of an artifact')
    .argument('[targets...]', 'files, directories or globs to validate (default: the whole kb/); with --artifact, the one draft')
    .option('--artifact <dir>', 'validate the draft as a member of this artifact directory (with --role); the directory is not written')
    .option('--role <role>', 'the layout role the draft is a candidate for')
    .option('--layout <file>', "the artifact's layout file (default: `layout` in the run's parameters.json)")
    .option('--disposition <disposition>', `check requiredness under this disposition (${DISPOSITIONS.join(', ')}); default: the layout's declared member field, else published`)
    .option('--json', 'print the findings as JSON')
    .option('--verbose', 'list every file, the clean and the plain-text ones too (default: problems only)')
    .option('--kb <dir>', 'the KB checkout (default: the Git root above the current directory that holds kb/)')
    .action(
      action(async (targets: string[], _options: ValidateOptions, command: Command) => {
        try {
          await runValidate(targets, command.optsWithGlobals<ValidateOptions>());
        } catch (error) {
          if (error instanceof KbError) throw new UserError(error.message);
          throw error;
        }
      }),
    );
}

async function runValidate(targets: string[], options: ValidateOptions): Promise<void> {
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
    process.stdout.write(options.json ? formatDraftJson(report) : formatDraftHuman(report));
    process.exitCode = hasFailures(report.findings) ? 1 : 0;
    return;
  }
  const checkout = findCheckout(cwd, options.kb);
  const files = await collectFiles(checkout.root, targets, cwd);
  const registry = new TypeRegistry(checkout.root);
  const report = await withPublished(await validateFiles(files, { repoRoot: checkout.root, registry }), registry);
  process.stdout.write(options.json ? formatFilesJson(report) : formatFilesHuman(report, { verbose: options.verbose ?? false }));
  process.exitCode = report.summary.failures > 0 ? 1 : 0;
}

/** Published artifacts among the files are validated whole: their members' results carry the layout's relations too, and their manifest is checked. */
async function withPublished(report: ValidationReport, registry: TypeRegistry): Promise<ValidationReport> {
  const dirs = await publishedArtifactsOf(report.root, report.results.map((result) => result.file));
  if (dirs.length === 0) return report;
  const byFile = new Map(report.results.map((result) => [result.file, result]));
  for (const dir of dirs) {
    for (const result of await validatePublished(report.root, dir, registry)) byFile.set(result.file, result);
  }
  const results = [...byFile.values()].sort((a, b) => a.file.localeCompare(b.file));
  return { ...report, results, summary: summarize(results) };
}
