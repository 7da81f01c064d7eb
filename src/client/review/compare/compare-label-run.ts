/** The action of `review compare label`: the operator's verdicts on a compare run's disagreements, kept in labels.jsonl. */
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { writeCompareReport } from '../../../activities/review/compare/report-files.js';
import { appendLabels, compareRunDir, CompareRunError, readLabels, readSample, readVerdicts, reportFile } from '../../../review/compare/run-files.js';
import { kappaText, referenceText } from '../../../review/compare/render.js';
import { LABELS_ROUTE, verdicts, type CompareReport, type Label, type RouteVerdict, type Verdict } from '../../../review/compare/types.js';
import { checkoutRootOf } from '../../shared/checkout.js';
import { UserError } from '../../shared/errors.js';
import { parseOptions } from '../../shared/options.js';

const optionsSchema = z.object({
  file: z.string().min(1, '--file needs a file name').optional(),
  by: z.string().trim().min(1, '--by needs a name').optional(),
  kb: z.string().optional(),
});

/** The options as commander hands them. */
export type LabelOptions = z.input<typeof optionsSchema>;

const pairKey = (note: string, criterion: string): string => `${note}\u0000${criterion}`;

/** The login name, or `operator` where the system has none. */
function loginName(): string {
  try {
    return userInfo().username || 'operator';
  } catch {
    return 'operator';
  }
}

/** A label file's lines as labels, or every bad line named with what is wrong. */
export function parseLabelFile(text: string, file: string, inSample: Set<string>, by: string, at: string): { labels: Label[]; problems: string[] } {
  const labels: Label[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file} line ${index + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length !== 3)
      return void problems.push(`${where}: expected \`note criterion verdict\`, got ${fields.length} field${fields.length === 1 ? '' : 's'}`);
    const [note = '', criterion = '', verdict = ''] = fields;
    if (!(verdicts as readonly string[]).includes(verdict)) return void problems.push(`${where}: verdict \`${verdict}\` must be pass, warn or fail`);
    if (!inSample.has(pairKey(note, criterion))) return void problems.push(`${where}: ${note} × ${criterion} is not a pair of the run's sample`);
    labels.push({ note, criterion, verdict: verdict as Verdict, by, at });
  });
  return { labels, problems };
}

interface Disagreement {
  note: string;
  criterion: string;
  said: RouteVerdict[];
}

/** The sample's pairs the routes do not all agree on, criterion by criterion, leaving out those labelled already. */
function disagreements(
  pairs: readonly { note: string; criterion: string }[],
  all: readonly RouteVerdict[],
  labelled: Set<string>,
  routes: readonly string[],
): Disagreement[] {
  const rank = (route: string): number => (routes.includes(route) ? routes.indexOf(route) : routes.length);
  // A route's later verdict on a pair replaces its earlier one.
  const said = (pair: { note: string; criterion: string }) => [
    ...new Map(all.filter((v) => v.note === pair.note && v.criterion === pair.criterion).map((v) => [v.route, v])).values(),
  ];
  return pairs
    .filter((pair) => !labelled.has(pairKey(pair.note, pair.criterion)))
    .map((pair) => ({ ...pair, said: said(pair).sort((a, b) => rank(a.route) - rank(b.route)) }))
    .filter((pair) => new Set(pair.said.map((verdict) => verdict.verdict)).size > 1)
    .sort((a, b) => a.criterion.localeCompare(b.criterion) || a.note.localeCompare(b.note));
}

/** The answers, each typed as its word or its first letter. */
const ANSWERS = ['pass', 'warn', 'fail', 'skip', 'quit'] as const;

/** Asks pair after pair on the terminal; keeps each label as it is given. Returns how many were kept. */
async function askInTerminal(runDir: string, pending: readonly Disagreement[], by: string): Promise<number> {
  if (pending.length === 0) {
    process.stdout.write('Nothing to label: the routes agree on every pair not labelled yet.\n');
    return 0;
  }
  const terminal = createInterface({ input: process.stdin, terminal: false });
  const lines = terminal[Symbol.asyncIterator]();
  let kept = 0;
  try {
    for (const [index, pair] of pending.entries()) {
      process.stdout.write(`\n[${index + 1}/${pending.length}] ${pair.note}\n  criterion ${pair.criterion}\n`);
      for (const said of pair.said) {
        process.stdout.write(`  ${said.route}: ${said.verdict}\n`);
        for (const reason of said.reasons) process.stdout.write(`    - ${reason}\n`);
      }
      let answer: (typeof ANSWERS)[number] | undefined;
      while (answer === undefined) {
        process.stdout.write('  your verdict — p(ass) w(arn) f(ail) s(kip) q(uit): ');
        const next = await lines.next();
        if (next.done) return kept;
        const typed = next.value.trim().toLowerCase();
        answer = ANSWERS.find((word) => typed === word || typed === word[0]);
        if (answer === undefined) process.stdout.write(`  \`${next.value.trim()}\` is not one of p, w, f, s, q\n`);
      }
      if (answer === 'quit') return kept;
      if (answer === 'skip') continue;
      await appendLabels(runDir, [{ note: pair.note, criterion: pair.criterion, verdict: answer, by, at: new Date().toISOString() }]);
      kept += 1;
    }
    return kept;
  } finally {
    terminal.close();
  }
}

/** What the labels say of each route over all pairs, one line each. */
function againstLabels(report: CompareReport): string[] {
  return report.overall
    .filter((a) => a.reference === LABELS_ROUTE)
    .map(
      (a) => `  ${a.route} against ${referenceText(a.reference, report)}: n ${a.n}, raw ${a.raw.toFixed(2)}, ${a.kappa === null ? '' : 'κ '}${kappaText(a)}`,
    );
}

/** `commonplace review compare label RUN [--file F]`: labels appended to labels.jsonl, the report rewritten. */
export async function runCompareLabel(runId: string, raw: LabelOptions): Promise<void> {
  const options = parseOptions(optionsSchema, raw);
  const checkout = checkoutRootOf(options.kb);
  const runDir = compareRunDir(checkout, runId);
  const by = options.by ?? loginName();
  try {
    const sample = await readSample(runDir);
    const labels = await readLabels(runDir);
    let kept: number;
    if (options.file !== undefined) {
      const text = await readFile(path.resolve(options.file), 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new UserError(`--file ${options.file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
      });
      const inSample = new Set(sample.pairs.map((pair) => pairKey(pair.note, pair.criterion)));
      const parsed = parseLabelFile(text, options.file, inSample, by, new Date().toISOString());
      if (parsed.problems.length > 0) throw new UserError(`${parsed.problems.join('\n')}\nnothing was labelled: correct the file and run the command again`);
      await appendLabels(runDir, parsed.labels);
      kept = parsed.labels.length;
    } else {
      const labelled = new Set(labels.map((label) => pairKey(label.note, label.criterion)));
      const { routes } = await writeCompareReport(checkout, runId);
      kept = await askInTerminal(runDir, disagreements(sample.pairs, await readVerdicts(runDir), labelled, routes), by);
    }
    const report = await writeCompareReport(checkout, runId);
    process.stdout.write(
      `\nLabelled ${kept} pair${kept === 1 ? '' : 's'} (${labels.length + kept} labels in all); report rewritten: ${reportFile(runDir, 'md')}\n`,
    );
    process.stdout.write(`${againstLabels(report).join('\n')}\n`);
  } catch (error) {
    if (error instanceof CompareRunError) throw new UserError(`compare run ${runId}: ${error.message}`);
    throw error;
  }
}
