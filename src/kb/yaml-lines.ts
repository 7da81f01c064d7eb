import YAML, { isMap, isPair, isScalar, isSeq, LineCounter, type Document, type Node as YamlNode } from 'yaml';

type LineAt = (segments: readonly PropertyKey[]) => number | undefined;

/**
 * The line of each key path (`roles.runtime-report.path`) in a parsed YAML document, so a schema
 * issue at any path is reported at the line of the nearest key that exists. Layouts and plans share it.
 */
export function keyLines(doc: Document, lineCounter: LineCounter, options: { rootLine?: number } = {}): { lines: ReadonlyMap<string, number>; lineAt: LineAt } {
  const lines = new Map<string, number>();
  const record = (node: unknown, prefix: string): void => {
    const children = isMap(node)
      ? node.items.filter(isPair).map((pair) => [isScalar(pair.key) ? String(pair.key.value) : String(pair.key), pair.key, pair.value] as const)
      : isSeq(node)
        ? node.items.map((item, index) => [String(index), item, item] as const)
        : [];
    for (const [key, at, child] of children) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      const offset = (at as YamlNode | null)?.range?.[0];
      if (offset !== undefined) lines.set(path, lineCounter.linePos(offset).line);
      record(child, path);
    }
  };
  record(doc.contents, '');
  if (options.rootLine !== undefined && !lines.has('')) lines.set('', options.rootLine);
  const lineAt: LineAt = (segments) => {
    for (let length = segments.length; length >= 0; length -= 1) {
      const line = lines.get(segments.slice(0, length).map(String).join('.'));
      if (line !== undefined) return line;
    }
    return undefined;
  };
  return { lines, lineAt };
}

/** A settings file's YAML read for checking: its data and key lines, or its syntax errors (`malformed YAML: …`) with their lines. */
export function parseYamlFile(
  source: string,
): { readonly ok: true; readonly data: unknown; readonly lineAt: LineAt } | { readonly ok: false; readonly errors: { line?: number; message: string }[] } {
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((error) => ({ line: lineCounter.linePos(error.pos[0]).line, message: `malformed YAML: ${error.message.split('\n')[0] ?? ''}` })),
    };
  }
  try {
    return { ok: true, data: doc.toJS({ maxAliasCount: 100 }), lineAt: keyLines(doc, lineCounter, { rootLine: 1 }).lineAt };
  } catch (error) {
    return { ok: false, errors: [{ message: `malformed YAML: ${(error as Error).message}` }] };
  }
}
