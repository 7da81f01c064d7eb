/** A heading or table row starting with a record ID declares it; any other mention is a citation (artifact validation's rule). PURE MODULE. */

/** The text after its frontmatter block, or all of it. */
export function noteBody(text: string): string {
  const normal = text.replace(/\r\n/g, '\n');
  const match = /^---[ \t]*\n[\s\S]*?\n---[ \t]*(?:\n|$)/.exec(normal);
  return match ? normal.slice(match[0].length) : normal;
}

/** Each body line outside fenced code, with its 0-based index. */
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

/** In order of first declaration. */
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
