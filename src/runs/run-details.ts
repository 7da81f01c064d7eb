/** A run's static details for the Web UI, set once at start. It renders them as Markdown, and a history carries no host path. */
import { inWords } from '../place-words.js';

export type DetailRows = ReadonlyArray<readonly [label: string, value: string | number | boolean | undefined | null]>;

/** One line shown as written: place tokens as words, Markdown's markup escaped so nothing vanishes or turns into a link. */
export function markdownText(text: string): string {
  return inWords(text)
    .replace(/[\\`*_[\]<>|~&]/g, '\\$&')
    .replace(/\s*\n\s*/g, ' ');
}

/** Rows without a value are left out. */
export function runDetails(title: string, rows: DetailRows): string {
  const lines = [`**${markdownText(title)}**`, '', '| parameter | value |', '| --- | --- |'];
  for (const [label, value] of rows) {
    if (value === undefined || value === null || value === '') continue;
    lines.push(`| ${markdownText(label)} | ${markdownText(String(value))} |`);
  }
  return lines.join('\n');
}
