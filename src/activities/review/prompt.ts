import { isPathCriterion } from '../../review/paths.js';
import type { Finding } from '../../kb/findings.js';
import { formatFindingInline } from '../../kb/format.js';
import type { Grouping, SweepUnit } from '../../review/sweep-types.js';

export interface ReviewPromptInput {
  unit: SweepUnit;
  grouping: Grouping;
  /** Where each input was captured, relative to the launch directory. */
  noteInput: string;
  criterionInputs: Record<string, string>;
  output: string;
  /** Why the last output was refused, for a re-ask. */
  findings: readonly Finding[];
  /** A note-first pair's note's criteria in the sweep, on Anthropic: its request offers one answer tool per criterion (src/harness/executors/api-request.ts). */
  noteTools?: readonly { id: string; report: boolean }[];
}

/** One finding as a re-ask shows it. */
export function findingItem(finding: Finding): string {
  return `- ${formatFindingInline(finding)}`;
}

/**
 * The findings block of a re-ask prompt: the one place a worker (or, in a selection proposal
 * asked again, the operator) is told why the last answer was refused.
 */
export function findingsBlock(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return [];
  return ['Your previous output was refused by the check; fix these and write the output again:', ...findings.map(findingItem), ''];
}

/**
 * The review prompt names the inputs and the output contract only: the judgment lives in the
 * criterion files (a prompt change re-asks nothing by itself and stales no result).
 */
export function reviewPrompt(input: ReviewPromptInput): string {
  const { unit } = input;
  const report = unit.criteria.every((criterion) => criterion.report);
  const resultLine = report ? '`Result: report`' : '`Result: pass`, `Result: warn` or `Result: fail`';
  const lines: string[] = [];
  if (input.grouping === 'bundle') {
    lines.push(
      bundleHeading(unit),
      "Read each gate in its criterion input and the note in its note input. Follow each gate's own test.",
      `Write one review file, ${input.output}, with one section per gate, in the order listed: a heading line \`## <gate id>\`,`,
      `your review for that gate, and as the section's last line exactly one result line: ${resultLine}.`,
    );
  } else {
    lines.push(
      "Review the note against the criterion below. Read the criterion input, then the note input, and follow the criterion's test.",
      `Write your review to ${input.output}. Its last line must be exactly one result line: ${resultLine}.`,
    );
  }
  lines.push('Write nothing else and change no other file.', '');
  lines.push(...findingsBlock(input.findings));
  lines.push('job = gate-review', `grouping = ${input.grouping}`, `note = ${unit.note}`, `note-input = ${input.noteInput}`);
  // What a model-API request puts first for the cache, when the sweep chose it (src/harness/executors/api-request.ts).
  if (unit.cachePrefix !== undefined) lines.push(`cache-prefix = ${unit.cachePrefix}`);
  for (const tool of input.noteTools ?? []) lines.push(`${tool.report ? 'note-report-tool' : 'note-tool'} = ${tool.id}`);
  for (const criterion of unit.criteria) {
    lines.push(`criterion = ${criterion.id}`, `criterion-input = ${input.criterionInputs[criterion.id]}`);
  }
  lines.push(`output = ${input.output}`, '');
  return lines.join('\n');
}

/** What a bundle asks: a lens's gates, with the note's type spec and collection criteria where they joined it. */
function bundleHeading(unit: ReviewPromptInput['unit']): string {
  const paths = unit.criteria.filter((criterion) => isPathCriterion(criterion.id)).length;
  const gates = unit.criteria.length - paths;
  if (paths === 0) return `Review the note against each of the ${gates} review gates of the ${unit.lens} lens listed below.`;
  const others = `the note's type spec and collection criteria (${paths})`;
  if (gates === 0) return `Review the note against each of ${others} listed below.`;
  return `Review the note against each of the ${unit.criteria.length} criteria listed below: the ${gates} review gates of the ${unit.lens} lens and ${others}.`;
}
