/**
 * A note's frontmatter in the form notes are written in — one `key: value` line per field, each value
 * plain one-line text, a double-quoted one-line string, or a flow list of plain words — read without a YAML
 * parser. Review status reads every note of the KB on each run, and the YAML parser was most of that
 * time. Anything outside that form is left to the YAML parser (undefined), so the result is always
 * what `YAML.parseDocument(…).toJS()` gives for the same text (test/review/quick-frontmatter.test.ts
 * holds that over the whole shared corpus).
 */
import { isSafePlain } from './result-file.js';

const LINE = /^([a-z][a-z0-9_-]*): (.*)$/;
/** A JSON string whose characters YAML's double-quoted style reads the same way (no raw controls or line separators). */
// eslint-disable-next-line no-control-regex -- the point is to refuse raw control characters
const SAFE_QUOTED = /^"(?:[^"\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$/;

/** YAML's indicators, which a plain scalar may not start with (`-`, `?`, `:` may, before a non-space; refused here all the same). */
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
// eslint-disable-next-line no-control-regex -- the point is to refuse raw control characters
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/**
 * Whether one line's value is a block plain scalar that YAML reads as this same string: not starting
 * with an indicator or a blank, no `: ` (a nested mapping) or ` #` (a comment), not ending in `:` or a
 * blank, no control character, and — a single word — not a null, bool or number of the core schema.
 */
function isPlainText(raw: string): boolean {
  if (raw === '' || INDICATOR_START.test(raw) || /^\s|\s$/.test(raw) || UNPRINTABLE.test(raw)) return false;
  if (raw.includes(': ') || raw.includes(' #') || raw.endsWith(':')) return false;
  return raw.includes(' ') || isSafePlain(raw);
}

/** The frontmatter mapping of `lines` (the lines between the `---` delimiters), or undefined when YAML must read it. */
export function quickFrontmatter(lines: readonly string[]): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const line of lines) {
    const match = LINE.exec(line);
    if (!match) return undefined;
    const key = match[1] as string;
    const raw = match[2] as string;
    if (seen.has(key)) return undefined; // YAML reports the duplicate
    seen.add(key);
    if (isSafePlain(raw) || (!raw.startsWith('[') && isPlainText(raw))) data[key] = raw;
    else if (SAFE_QUOTED.test(raw)) data[key] = JSON.parse(raw) as string;
    else if (raw.startsWith('[') && raw.endsWith(']')) {
      const inner = raw.slice(1, -1).trim();
      if (inner === '') {
        data[key] = [];
        continue;
      }
      const items = inner.split(',').map((item) => item.trim());
      if (!items.every(isSafePlain)) return undefined;
      data[key] = items;
    } else return undefined;
  }
  return data;
}
