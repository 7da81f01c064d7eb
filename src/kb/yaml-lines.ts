import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node as YamlNode } from 'yaml';

/**
 * The line of each key path (`roles.runtime-report.path`) in a parsed YAML document, so a schema
 * issue at any path is reported at the line of the nearest key that exists. Layouts and plans share it.
 */
export function keyLines(
  doc: Document,
  lineCounter: LineCounter,
  options: { rootLine?: number } = {},
): { lines: ReadonlyMap<string, number>; lineAt: (segments: readonly PropertyKey[]) => number | undefined } {
  const lines = new Map<string, number>();
  const where = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  const record = (node: unknown, prefix: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const child = prefix === '' ? key : `${prefix}.${key}`;
        const line = where((pair.key as YamlNode | null)?.range?.[0]);
        if (line !== undefined) lines.set(child, line);
        record(pair.value, child);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        const child = prefix === '' ? String(index) : `${prefix}.${index}`;
        const line = where((item as YamlNode | null)?.range?.[0]);
        if (line !== undefined) lines.set(child, line);
        record(item, child);
      });
    }
  };
  record(doc.contents, '');
  if (options.rootLine !== undefined && !lines.has('')) lines.set('', options.rootLine);
  const lineAt = (segments: readonly PropertyKey[]): number | undefined => {
    for (let length = segments.length; length >= 0; length -= 1) {
      const line = lines.get(segments.slice(0, length).map(String).join('.'));
      if (line !== undefined) return line;
    }
    return undefined;
  };
  return { lines, lineAt };
}
