/** Findings for people and machines, apart from producing them, so every producer prints alike. */
import { summarize, type Finding, type Summary } from './findings.js';
import type { DraftReport } from './draft.js';
import type { ValidationReport } from './validate.js';

/** Human output of a file validation: findings grouped by file, then the one-line summary. */
export function formatFilesHuman(report: Pick<ValidationReport, 'results' | 'summary'>, options: { verbose?: boolean } = {}): string {
  const out: string[] = [];
  for (const result of report.results) {
    if (result.findings.length === 0) {
      if (options.verbose) out.push(result.kind === 'text' ? `${result.file}: plain text, nothing to validate` : `${result.file}: ok`);
      continue;
    }
    out.push(result.kind === 'text' ? `${result.file} (plain text)` : result.file);
    for (const finding of result.findings) out.push(formatFindingLine(finding));
  }
  if (out.length > 0) out.push('');
  out.push(formatSummary(report.summary));
  return `${out.join('\n')}\n`;
}

/** Human output of a draft validation: which role of which artifact, the role's findings, the summary. */
export function formatDraftHuman(report: DraftReport): string {
  const out = [`${report.draft} as ${report.role} (${report.rolePath}) of ${report.artifact}, layout ${report.layout}, disposition ${report.disposition}`];
  for (const finding of report.findings) out.push(formatFindingLine(finding));
  out.push('');
  const { failures, warnings } = summarize([report.result]);
  const hidden: string[] = [];
  if (report.omitted.otherRoles > 0) hidden.push(`${plural(report.omitted.otherRoles, 'finding')} on other members`);
  if (report.omitted.absent > 0) hidden.push(`${plural(report.omitted.absent, 'absent-member finding')}`);
  if (report.omitted.unattributed > 0) hidden.push(`${plural(report.omitted.unattributed, 'artifact-wide finding')}`);
  const notShown = hidden.length > 0 ? ` (not shown: ${hidden.join(', ')})` : '';
  out.push(`draft ${report.role}: ${plural(failures, 'failure')}, ${plural(warnings, 'warning')}${notShown}`);
  return `${out.join('\n')}\n`;
}

/** One finding as an indented line: line number, severity, message, rule. */
export function formatFindingLine(finding: Finding): string {
  return `  ${String(finding.line ?? '').padStart(4)}  ${finding.severity}  ${finding.message}  [${finding.rule}]`;
}

/** One finding on one line (a re-ask's block, a CLI error): `criterion: file:line: path: message (rule)`, each part when known. */
export function formatFindingInline(finding: Finding): string {
  const where = `${finding.file}${finding.line === undefined ? '' : `:${finding.line}`}`;
  return `${finding.criterion === undefined ? '' : `${finding.criterion}: `}${where}: ${finding.path ? `${finding.path}: ` : ''}${finding.message} (${finding.rule}${finding.severity === 'warn' ? ', a warning' : ''})`;
}

/** Findings joined for a one-line error (`a; b; c`). */
export function formatFindingsInline(findings: readonly Finding[]): string {
  return findings.map(formatFindingInline).join('; ');
}

/** The one-line summary every run ends with: files by kind, failures, warnings. */
export function formatSummary(summary: Summary): string {
  const kinds: string[] = [];
  if (summary.notes > 0) kinds.push(plural(summary.notes, 'note'));
  if (summary.text > 0) kinds.push(`${summary.text} plain text`);
  if (summary.schemas > 0) kinds.push(plural(summary.schemas, 'schema'));
  if (summary.layouts > 0) kinds.push(plural(summary.layouts, 'layout'));
  if (summary.manifests > 0) kinds.push(plural(summary.manifests, 'published manifest'));
  if (summary.calibrations > 0) kinds.push(plural(summary.calibrations, 'calibration record'));
  if (summary.unreadable > 0) kinds.push(`${summary.unreadable} unreadable`);
  if (summary.absent > 0) kinds.push(`${summary.absent} absent`);
  const files = `${plural(summary.files, 'file')}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`;
  const failed = summary.failedFiles > 0 ? ` in ${plural(summary.failedFiles, 'file')}` : '';
  return `${files}: ${plural(summary.failures, 'failure')}${failed}, ${plural(summary.warnings, 'warning')}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
