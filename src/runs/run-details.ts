/**
 * A run's static details for the Temporal Web UI: the parameters it was started with, as a small
 * Markdown table (the UI renders it under the workflow's Summary & Details). Set once at start;
 * what changes while the run goes on is in its current details.
 *
 * The Web UI renders summaries and details as Markdown, and a history carries no host path: every
 * value is shown as written (`markdownText`), its place tokens as words (src/place-words.ts).
 */
import { inWords } from '../place-words.js';

export type DetailRows = ReadonlyArray<readonly [label: string, value: string | number | boolean | undefined | null]>;

/**
 * Text the Web UI renders as Markdown, shown as written on one line: place tokens as words
 * (`checkout 32ae503a › kb/notes/x.md`), and every character Markdown would read as markup (emphasis,
 * links, HTML, code, tables) escaped, so nothing vanishes or turns into a link.
 */
export function markdownText(text: string): string {
  return inWords(text)
    .replace(/[\\`*_[\]<>|~&]/g, '\\$&')
    .replace(/\s*\n\s*/g, ' ');
}

/** The table of the rows that have a value, under a heading. */
export function runDetails(title: string, rows: DetailRows): string {
  const lines = [`**${markdownText(title)}**`, '', '| parameter | value |', '| --- | --- |'];
  for (const [label, value] of rows) {
    if (value === undefined || value === null || value === '') continue;
    lines.push(`| ${markdownText(label)} | ${markdownText(String(value))} |`);
  }
  return lines.join('\n');
}
