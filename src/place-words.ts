/**
 * Places as a person reads them where no host's paths apply (the Web UI, a client that does not hold
 * the checkout): the tokens of src/checkout/places.ts written as plain words.
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

/** The rest of a place as `inWords` writes it: a path without spaces, not ending in a full stop or colon. */
const REST = String.raw`[^\s,;()'"\x60<>|]*[^\s,;()'"\x60<>|.:]`;

/** A place written as words (the forms `placeWords` writes), to read back as its token. */
const WORDS_PATTERN = new RegExp(
  String.raw`the run worktrees of checkout ([0-9a-f]{8})(?: › (${REST}))?|checkout ([0-9a-f]{8})(?: › (${REST}))?|the worker's state directory(?: › (${REST}))?|the package's (${REST})|the package\b`,
  'g',
);

/** Text with every place written as words (`inWords`) read back as its token: `checkout 32ae503a › kb/x.md` → `<checkout:32ae503a>/kb/x.md`. */
export function fromWords(text: string): string {
  if (!text.includes('checkout ') && !text.includes('the worker') && !text.includes('the package')) return text;
  return text.replace(
    WORDS_PATTERN,
    (_words, worktreesId?: string, worktreesRest?: string, checkoutId?: string, checkoutRest?: string, stateRest?: string, packageRest?: string) => {
      const rest = (inside: string | undefined) => (inside === undefined ? '' : `/${inside}`);
      if (worktreesId !== undefined) return `<worktrees:${worktreesId}>${rest(worktreesRest)}`;
      if (checkoutId !== undefined) return `<checkout:${checkoutId}>${rest(checkoutRest)}`;
      if (_words.startsWith("the worker's")) return `<state>${rest(stateRest)}`;
      return `<package>${rest(packageRest)}`;
    },
  );
}

/** Every string in a memo value mapped (keys kept): for memo fields, which hold plain JSON. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  return value;
}

/**
 * A memo as an operator reads it in the Web UI and `temporal workflow describe`: every place token in
 * words. The words keep the checkout ID and the path, so `memoFromWords` reads the tokens back: a memo
 * stays portable between hosts (docs/cli.md, "What a person reads").
 */
export const memoInWords = <T>(memo: T): T => mapStrings(memo, inWords) as T;

/** A memo field as the code reads it: places written as words back to their tokens (a memo written with tokens is read as it is). */
export const memoFromWords = <T>(value: T): T => mapStrings(value, fromWords) as T;
