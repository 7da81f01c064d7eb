/**
 * Record IDs in member text: a member declares a record with a heading or a table row that starts
 * with the ID (the layout's `records.id` pattern); any other mention is a citation. The same rule
 * as artifact validation, for the declared checks and the feedback that need the IDs themselves.
 *
 * PURE MODULE.
 */

/** The body of a note: the text after its frontmatter block, or all of it. */
export function noteBody(text: string): string {
  const normal = text.replace(/\r\n/g, '\n');
  const match = /^---[ \t]*\n[\s\S]*?\n---[ \t]*(?:\n|$)/.exec(normal);
  return match ? normal.slice(match[0].length) : normal;
}

/** Calls `onLine` for each body line outside fenced code, with its 0-based index. */
export function proseLines(body: string, onLine: (line: string, index: number) => void): void {
  let fence: string | undefined;
  body.split('\n').forEach((line, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (marker !== undefined) {
      fence = marker;
      return;
    }
    onLine(line, index);
  });
}

/** The record IDs a body declares, in order of first declaration. */
export function declaredRecords(body: string, pattern: string): string[] {
  const heading = new RegExp(`^ {0,3}#{1,6}[ \\t]+\\**\`?(${pattern})(?![\\w-])`, 'u');
  const row = new RegExp(`^ {0,3}\\|[ \\t]*\\**\`?(${pattern})(?![\\w-])`, 'u');
  const found: string[] = [];
  proseLines(body, (line) => {
    const id = (heading.exec(line) ?? row.exec(line))?.[1];
    if (id !== undefined && !found.includes(id)) found.push(id);
  });
  return found;
}
