import type { Grouping, SweepUnit } from '../../review/sweep-types.js';

export interface ReviewPromptInput {
  unit: SweepUnit;
  grouping: Grouping;
  /** Where each input was captured, relative to the launch directory. */
  noteInput: string;
  criterionInputs: Record<string, string>;
  output: string;
  /** Why the last output was refused (`<criterion>: <finding>`), for a re-ask. */
  findings: string[];
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
      `Review the note against each of the ${unit.criteria.length} review gates of the ${unit.lens} lens listed below.`,
      'Read each gate in its criterion input and the note in its note input. Follow each gate\'s own test.',
      `Write one review file, ${input.output}, with one section per gate, in the order listed: a heading line \`## <gate id>\`,`,
      `your review for that gate, and as the section's last line exactly one result line: ${resultLine}.`,
    );
  } else {
    lines.push(
      'Review the note against the criterion below. Read the criterion input, then the note input, and follow the criterion\'s test.',
      `Write your review to ${input.output}. Its last line must be exactly one result line: ${resultLine}.`,
    );
  }
  lines.push('Write nothing else and change no other file.', '');
  if (input.findings.length > 0) {
    lines.push('Your previous output was refused by the check; fix these and write the output again:');
    for (const finding of input.findings) lines.push(`- ${finding}`);
    lines.push('');
  }
  lines.push('job = gate-review', `grouping = ${input.grouping}`, `note = ${unit.note}`, `note-input = ${input.noteInput}`);
  for (const criterion of unit.criteria) {
    lines.push(`criterion = ${criterion.id}`, `criterion-input = ${input.criterionInputs[criterion.id]}`);
  }
  lines.push(`output = ${input.output}`, '');
  return lines.join('\n');
}
