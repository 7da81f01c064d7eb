/** The action of `review compare keep`: one calibration record per criterion of a compare run. */
import { z } from 'zod';
import { writeCompareReport } from '../../../activities/review/compare/report-files.js';
import { recordFromReport } from '../../../review/compare/calibration.js';
import { criterionHashNow, profileHashes, writeCalibrationRecord } from '../../../review/compare/calibration-files.js';
import { compareRunDir, CompareRunError, readVerdicts } from '../../../review/compare/run-files.js';
import { kappaText } from '../../../review/compare/render.js';
import { LABELS_ROUTE, type Agreement, type RouteVerdict } from '../../../review/compare/types.js';
import { checkoutRootOf } from '../../shared/checkout.js';
import { UserError } from '../../shared/errors.js';
import { parseOptions } from '../../shared/options.js';

const optionsSchema = z.object({
  criteria: z
    .string()
    .optional()
    .transform((text) => text?.split(',').flatMap((id) => id.trim() || [])),
  reference: z.string().min(1, '--reference needs a route or labels').optional(),
  kb: z.string().optional(),
});

/** The options as commander hands them. */
export type KeepOptions = z.input<typeof optionsSchema>;

/** The one criterion hash a criterion's verdicts were given against, or why there is not one. */
function verdictHash(verdicts: readonly RouteVerdict[], criterion: string): string | { refused: string } {
  const hashes = new Set(verdicts.filter((v) => v.criterion === criterion).map((v) => v.criterionHash));
  if (hashes.size === 0) return { refused: 'no verdicts' };
  if (hashes.size > 1) return { refused: 'its verdicts were given against different versions of it (it changed during the run): compare again' };
  return [...hashes][0] as string;
}

/** `commonplace review compare keep RUN`: records written atomically, each criterion refused with its reason where it cannot back one. */
export async function runCompareKeep(runId: string, raw: KeepOptions): Promise<void> {
  const options = parseOptions(optionsSchema, raw);
  const checkout = checkoutRootOf(options.kb);
  try {
    const report = await writeCompareReport(checkout, runId);
    const verdicts = await readVerdicts(compareRunDir(checkout, runId));
    const reference = options.reference ?? report.reference;
    const known = report.criteria.map((c) => c.criterion);
    // The report scores every route against the run's reference and against the labels: a record is against one of those.
    if (reference !== report.reference && reference !== LABELS_ROUTE)
      throw new UserError(
        `--reference ${reference}: compare run ${runId} scores routes against ${report.reference} and labels only; keep against one of those`,
      );
    const unknown = (options.criteria ?? []).filter((id) => !known.includes(id));
    if (unknown.length > 0)
      throw new UserError(
        `--criteria: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in compare run ${runId} (its criteria: ${known.join(', ')})`,
      );
    const hashes = profileHashes(checkout);
    const at = new Date().toISOString();
    let kept = 0;
    for (const criterion of options.criteria ?? known) {
      const hash = verdictHash(verdicts, criterion);
      const record =
        typeof hash !== 'string'
          ? hash.refused
          : (await criterionHashNow(checkout, criterion)) !== hash
            ? 'the criterion changed since the run (or is gone), so the record would be stale at once: compare again'
            : recordFromReport({ report, criterion, reference, criterionHash: hash, profileHashes: hashes, at });
      if (typeof record === 'string') {
        process.stdout.write(`${criterion}: not kept: ${record}\n`);
        continue;
      }
      const file = await writeCalibrationRecord(checkout, record);
      kept += 1;
      const agreements = report.criteria.find((c) => c.criterion === criterion)?.agreements.filter((a): a is Agreement => a.reference === reference) ?? [];
      process.stdout.write(
        `${criterion}: kept in ${file}\n${agreements.map((a) => `  ${a.route}: n ${a.n}, ${a.kappa === null ? '' : 'κ '}${kappaText(a)}`).join('\n')}\n`,
      );
    }
    process.stdout.write(`${kept} calibration record${kept === 1 ? '' : 's'} kept against ${reference}; commit them with the KB.\n`);
    if (kept === 0) process.exitCode = 1;
  } catch (error) {
    if (error instanceof CompareRunError) throw new UserError(`compare run ${runId}: ${error.message}`);
    throw error;
  }
}
