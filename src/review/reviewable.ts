/**
 * Which notes are under review, and the `--notes` / `--gates` patterns that narrow
 * a selection. A reviewable note is a markdown file under `kb/` with a frontmatter
 * `type:`, outside `kb/instructions/` (criteria), `kb/types/` (type specs) and
 * `kb/reports/` (generated state, results included), that is not a README.md or a
 * COLLECTION.md, and whose type is not a type spec or a generated index.
 */
import picomatch from 'picomatch';
import type { Finding } from '../kb/findings.js';
import { resolveKbPath } from '../kb/kb-path.js';
import type { ApplicabilityNote } from './criteria.js';
import { TYPE_SPEC_TYPE } from './criteria.js';
import { readText, walkFiles } from './files.js';
import { noteParts, partDigests, type PartDigests } from './hash.js';
import { ReviewError } from './errors.js';

/** Folders of kb/ whose files are never notes under review. */
export const EXCLUDED_DIRS = ['kb/instructions', 'kb/types', 'kb/reports'] as const;
/** Types whose notes are not reviewed: type specs are criteria, generated indexes are written by code. */
export const EXCLUDED_TYPES = [TYPE_SPEC_TYPE, 'kb/types/generated-index.md'] as const;
const LANDING_FILES = new Set(['README.md', 'COLLECTION.md']);

export interface ReviewableNote extends ApplicabilityNote {
  /** The digests of its normalised parts, from which a note hash under any watch set is taken (hashDigests). */
  readonly digests: PartDigests;
}

/**
 * What the note index needs of a note file, which a cache may keep against the file's stat: no
 * frontmatter, a frontmatter without a `type:` string, or the `type:` as written, the traits and the
 * parts' digests. A note whose frontmatter cannot be read has no facts (it is read every time).
 */
export type NoteFacts =
  | { readonly kind: 'plain' }
  | { readonly kind: 'untyped' }
  | { readonly kind: 'typed'; readonly type: string; readonly traits: readonly string[]; readonly digests: PartDigests };

/** A store of note facts checked against each file's stat (the status cache). */
export interface NoteFactsCache {
  /** The facts kept for a note file whose stat is unchanged, and a way to keep new ones. */
  note(file: string): { readonly facts: NoteFacts | undefined; keep(facts: NoteFacts): void };
}

export interface NoteIndex {
  /** Reviewable notes by path, sorted. */
  readonly notes: ReadonlyMap<string, ReviewableNote>;
  /** Every markdown file under kb/ outside the excluded folders, reviewable or not. */
  readonly files: ReadonlySet<string>;
  /** Markdown files whose frontmatter cannot be read: not reviewable now, but not gone. */
  readonly unreadable: ReadonlyMap<string, readonly Finding[]>;
  /** Files that are not reviewable, with why (plain text, no type, an excluded type, a landing file). */
  readonly notReviewable: ReadonlyMap<string, string>;
}

/** Reads every candidate note of the checkout once: its applicability facts and its parts' digests (through `cache` where unchanged). */
export async function indexNotes(checkoutRoot: string, cache?: NoteFactsCache): Promise<NoteIndex> {
  const excluded = new Set<string>(EXCLUDED_DIRS);
  const files = walkFiles(checkoutRoot, 'kb', { skip: (dir) => excluded.has(dir) }).filter((file) => file.endsWith('.md'));
  const collections = new Set(files.filter((file) => file.endsWith('/COLLECTION.md')));
  const notes = new Map<string, ReviewableNote>();
  const unreadable = new Map<string, readonly Finding[]>();
  const notReviewable = new Map<string, string>();
  for (const file of files) {
    const name = file.slice(file.lastIndexOf('/') + 1);
    if (LANDING_FILES.has(name)) {
      notReviewable.set(file, `${name} is a landing file, not a note`);
      continue;
    }
    const kept = cache?.note(file);
    let facts = kept?.facts;
    if (facts === undefined) {
      const text = readText(checkoutRoot, file);
      if (text === undefined) continue;
      const read = readFacts(text, file);
      if (!read.ok) {
        unreadable.set(file, read.findings);
        continue;
      }
      facts = read.facts;
      kept?.keep(facts);
    }
    if (facts.kind === 'plain') {
      notReviewable.set(file, 'it is plain text (no frontmatter)');
      continue;
    }
    if (facts.kind === 'untyped') {
      notReviewable.set(file, 'it has no `type:`');
      continue;
    }
    const resolved = resolveKbPath(facts.type, file, checkoutRoot);
    const type = resolved.ok ? resolved.path : undefined;
    if (type !== undefined && (EXCLUDED_TYPES as readonly string[]).includes(type)) {
      notReviewable.set(file, `its type ${type} is not reviewed`);
      continue;
    }
    notes.set(file, { path: file, type, traits: facts.traits, collection: nearestCollection(file, collections), digests: facts.digests });
  }
  const sorted = new Map([...notes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  return { notes: sorted, files: new Set(files), unreadable, notReviewable };
}

function readFacts(text: string, file: string): { ok: true; facts: NoteFacts } | { ok: false; findings: readonly Finding[] } {
  const extracted = noteParts(text, file);
  if (!extracted.ok) return extracted;
  const frontmatter = extracted.frontmatter;
  if (frontmatter === undefined) return { ok: true, facts: { kind: 'plain' } };
  if (typeof frontmatter['type'] !== 'string') return { ok: true, facts: { kind: 'untyped' } };
  const traits = Array.isArray(frontmatter['traits']) ? frontmatter['traits'].filter((trait): trait is string => typeof trait === 'string') : [];
  return { ok: true, facts: { kind: 'typed', type: frontmatter['type'], traits, digests: partDigests(extracted.parts) } };
}

function nearestCollection(file: string, collections: ReadonlySet<string>): string | undefined {
  let dir = file.slice(0, file.lastIndexOf('/'));
  while (dir.startsWith('kb')) {
    const candidate = `${dir}/COLLECTION.md`;
    if (collections.has(candidate)) return candidate;
    const cut = dir.lastIndexOf('/');
    if (cut === -1) break;
    dir = dir.slice(0, cut);
  }
  return undefined;
}

/** A compiled `--notes` or `--gates` pattern, with the text the operator wrote. */
export interface Pattern {
  readonly written: string;
  readonly test: (value: string) => boolean;
}

/**
 * Compiles `--notes` patterns: picomatch globs on repository-relative paths
 * (`kb/notes/**`); a pattern may leave out the leading `kb/`, and one without glob
 * characters that names a folder selects everything under it.
 */
export function notePatterns(patterns: readonly string[]): Pattern[] {
  return patterns.map((written) => {
    let pattern = written.trim().replace(/\\/g, '/').replace(/^\.\//, '');
    if (pattern.endsWith('/')) pattern += '**';
    const variants = [pattern];
    if (!pattern.startsWith('kb/') && pattern !== 'kb' && !pattern.startsWith('*')) variants.push(`kb/${pattern}`);
    for (const variant of [...variants]) {
      if (!picomatch.scan(variant).isGlob && !variant.endsWith('.md')) variants.push(`${variant}/**`);
    }
    return { written, test: picomatch(variants) };
  });
}

/** Compiles `--gates` patterns: picomatch globs on gate IDs (`prose/*`); a bare lens name (`prose`) selects its gates. */
export function gatePatterns(patterns: readonly string[]): Pattern[] {
  return patterns.map((written) => {
    const pattern = written.trim();
    const variants = [pattern];
    if (!pattern.includes('/') && !picomatch.scan(pattern).isGlob) variants.push(`${pattern}/*`);
    return { written, test: picomatch(variants) };
  });
}

/** Keeps the values some pattern matches; a pattern that matches none of them is bad input, named in the error. */
export function selectMatching<T>(
  values: readonly T[],
  patterns: readonly Pattern[],
  key: (value: T) => string,
  what: string,
  hint: string | ((pattern: Pattern) => string),
): T[] {
  if (patterns.length === 0) return [...values];
  const matched = new Set<number>();
  for (const pattern of patterns) {
    let any = false;
    values.forEach((value, index) => {
      if (pattern.test(key(value))) {
        matched.add(index);
        any = true;
      }
    });
    if (!any) throw new ReviewError('no-match', `${pattern.written}: matches no ${what}; ${typeof hint === 'string' ? hint : hint(pattern)}`);
  }
  return values.filter((_, index) => matched.has(index));
}
