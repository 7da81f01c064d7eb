/** Current details that fit a Web UI screen. Place tokens read as words (a history names no host path); stop text is escaped for Markdown. Pure. */
import { inWords } from '../place-words.js';
import { markdownText } from '../runs/run-details.js';
import type { RunStatus, Stop } from '../runs/stop.js';

/** The longest line of current details, in characters (a stop's reason may take two lines' worth). */
export const DETAIL_LINE = 200;
export const STOP_REASON = 400;

/** `text` cut to at most `max` characters at a word boundary, with `…` where it was cut; a single word longer than `max` is kept whole. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const cut = line.lastIndexOf(' ', max - 2);
  if (cut > 0) return `${line.slice(0, cut).replace(/[\s,;:—-]+$/, '')} …`;
  const end = line.indexOf(' ');
  return end < 0 ? line : `${line.slice(0, end)} …`;
}

/** Each line clipped to `max`, and whether any was cut. */
export function clipAll(lines: readonly string[], max: number): { lines: string[]; clipped: boolean } {
  const worded = lines.map(inWords);
  const clipped = worded.map((line) => clip(line, max));
  return { lines: clipped, clipped: clipped.some((line, index) => line.length < worded[index]!.replace(/\s+/g, ' ').trim().length) };
}

/** As many of the paths as fit the line (five at most, one at least), and how many more. */
export function pathsLine(paths: readonly string[], max: number): { line: string; named: number } {
  const line = (named: number) =>
    `paths: ${paths.slice(0, named).map(markdownText).join(', ')}${named < paths.length ? ` and ${paths.length - named} more` : ''}`;
  let named = Math.min(paths.length, 5);
  while (named > 1 && line(named).length > max) named -= 1;
  return { line: line(named), named };
}

/** The lines of a run's stops: the first one's reason, paths, evidence and proposal; the others only counted, with where to read them. */
export function stopLines(stops: readonly Stop[], status: RunStatus, inspect: string | undefined): { lines: string[]; clipped: boolean } {
  const first = stops[0];
  if (first === undefined) return { lines: [], clipped: false };
  const reason = markdownText(clip(inWords(first.reason), STOP_REASON));
  const lines = [`**${status === 'exhausted' ? 'ended' : 'stopped'}: ${first.kind}** (${first.disposition}) — ${reason}`];
  let clipped = clip(inWords(first.reason), STOP_REASON).length < inWords(first.reason).replace(/\s+/g, ' ').trim().length;
  if ((first.kind === 'conflict' || first.kind === 'checkout-changed') && first.paths) {
    const shown = pathsLine(first.paths, DETAIL_LINE);
    lines.push(shown.line);
    clipped ||= shown.named < first.paths.length;
  }
  if (first.evidence) lines.push(`evidence: ${markdownText(first.evidence)}`);
  if (first.kind === 'awaiting-approval')
    lines.push(markdownText(clip(`inspect: ${first.proposal.inspect.join(', ')}`, DETAIL_LINE)), `key: ${markdownText(first.proposal.key)}`);
  const more = stops.slice(1);
  if (more.length > 0) {
    const kinds = [...new Set(more.map((stop) => stop.kind))].join(', ');
    lines.push(`and ${more.length} more stop${more.length === 1 ? '' : 's'} (${kinds})${inspect ? `, in full: ${inspect}` : ''}`);
  }
  return { lines, clipped };
}
