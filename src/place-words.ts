/**
 * Places as a person reads them where no host's paths apply (the Web UI, a client that does not hold
 * the checkout): the tokens of src/places.ts written as plain words.
 *
 * Pure string code without imports, so workflow code and the CLI's lightest modules can use it.
 */

/**
 * One place token with the path written after it (up to a space, a quote or closing punctuation; a
 * sentence's full stop or colon after the path is not part of it): kind, checkout ID, the rest.
 */
export const PLACE_PATTERN =
  /<(checkout|worktrees):([0-9a-f]{8})>(\/(?:[^\s,;()'"`<>|]*[^\s,;()'"`<>|.:])?)?|<(state|package)>(\/(?:[^\s,;()'"`<>|]*[^\s,;()'"`<>|.:])?)?/g;

/** A place as words a person reads where no host path applies: `checkout 32ae503a › kb/notes/x.md`, `the package's examples/systems/quill`. */
export function placeWords(kind: string, id: string | undefined, rest: string | undefined): string {
  const inside = rest?.replace(/^\/+/, '') ?? '';
  if (kind === 'package') return inside ? `the package's ${inside}` : 'the package';
  const place = kind === 'state' ? "the worker's state directory" : kind === 'worktrees' ? `the run worktrees of checkout ${id}` : `checkout ${id}`;
  return inside ? `${place} › ${inside}` : place;
}

/** Text with every place token written as words (`placeWords`): for what a person reads where no host's paths apply (the Web UI). */
export function inWords(text: string): string {
  if (!text.includes('<')) return text;
  return text.replace(PLACE_PATTERN, (_token, kind?: string, id?: string, rest?: string, root?: string, rootRest?: string) =>
    kind ? placeWords(kind, id, rest) : placeWords(root!, undefined, rootRest),
  );
}
