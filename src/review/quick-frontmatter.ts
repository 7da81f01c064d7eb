/**
 * Frontmatter in the form notes are written in, read without the YAML parser (most of status's time); anything else is
 * left to YAML (undefined), so the result always equals YAML's (test/review/quick-frontmatter.test.ts, whole corpus).
 */
/** A plain scalar YAML reads back as this same string: no indicators, no spaces, not a null, bool or number. */
const SAFE_PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./+@=-]*$/;
/** YAML 1.2 core schema's null, bool, int (decimal, octal, hex) and float forms, as the yaml package resolves them. */
const CORE_NON_STRING =
  /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$/;

/** Whether a string can be written as a YAML plain scalar and read back unchanged. */
export function isSafePlain(value: string): boolean {
  return SAFE_PLAIN.test(value) && !CORE_NON_STRING.test(value);
}

const LINE = /^([a-z][a-z0-9_-]*): (.*)$/;
/** A JSON string whose characters YAML's double-quoted style reads the same way (no raw controls or line separators). */
// eslint-disable-next-line no-control-regex -- the point is to refuse raw control characters
const SAFE_QUOTED = /^"(?:[^"\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$/;

/** YAML's indicators, which a plain scalar may not start with (`-`, `?`, `:` may, before a non-space; refused here all the same). */
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
// eslint-disable-next-line no-control-regex -- the point is to refuse raw control characters
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/** Whether a value is a plain scalar YAML reads as the same string (no indicator, `: `, ` #`, control char, core-schema word). */
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
      const items = inner === '' ? [] : inner.split(',').map((item) => item.trim());
      if (!items.every(isSafePlain)) return undefined;
      data[key] = items;
    } else return undefined;
  }
  return data;
}
