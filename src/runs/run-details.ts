/**
 * A run's static details for the Temporal Web UI: the parameters it was started with, as a small
 * Markdown table (the UI renders it under the workflow's Summary & Details). Set once at start;
 * what changes while the run goes on is in its current details.
 */

export type DetailRows = ReadonlyArray<readonly [label: string, value: string | number | boolean | undefined | null]>;

const cell = (value: string) => value.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The table of the rows that have a value, under a heading. */
export function runDetails(title: string, rows: DetailRows): string {
  const lines = [`**${cell(title)}**`, '', '| parameter | value |', '| --- | --- |'];
  for (const [label, value] of rows) {
    if (value === undefined || value === null || value === '') continue;
    lines.push(`| ${cell(label)} | ${cell(String(value))} |`);
  }
  return lines.join('\n');
}
