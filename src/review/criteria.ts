/**
 * Criteria: markdown files a note is reviewed against. Review gates come from the
 * catalog (`kb/instructions/review-gates/<lens>/<name>.md`, ID `{lens}/{name}`); a
 * type spec, a COLLECTION.md and the critique instruction are criteria too, with
 * their KB path as ID. Each criterion says what it watches, whether it is a report
 * criterion, and which notes it applies to.
 */
import path from 'node:path';
import type { Finding } from '../kb/findings.js';
import { parseNote } from '../kb/notes.js';
import { resolveKbPath } from '../kb/kb-path.js';
import { readText, walkFiles } from './files.js';
import { criterionHash, noteParts, parseWatches, WATCHED_PARTS, type WatchedPart } from './hash.js';
import { CRITIQUE_INSTRUCTION, GATES_DIR, gatePath, isPathCriterion } from './paths.js';

export type CriterionKind = 'gate' | 'type-spec' | 'collection' | 'instruction';

export interface Criterion {
  /** A gate's `{lens}/{name}`, or the KB path of any other criterion. */
  readonly id: string;
  /** The criterion file, repository-relative. */
  readonly path: string;
  readonly kind: CriterionKind;
  /** The gate's lens (its bundle); undefined for other criteria. */
  readonly lens: string | undefined;
  /** A report criterion's output ends `Result: report`; gates, type specs and COLLECTION.md are verdict criteria. */
  readonly reportCriterion: boolean;
  /** The parts its pairs' note hash covers: the declared `watches:`, or every part. */
  readonly watches: readonly WatchedPart[];
  readonly watchesDeclared: boolean;
  readonly staleness: string | undefined;
  /** The gate applies only to notes whose `traits:` list holds this. */
  readonly requiresTrait: string | undefined;
  /** The gate applies only to notes whose `type:` resolves to this repository path. */
  readonly requiresType: string | undefined;
  /** The criterion hash of the file as it stands. */
  readonly sha256: string;
}

/** What applicability looks at in a note. */
export interface ApplicabilityNote {
  readonly path: string;
  /** The note's `type:` resolved to a repository path, when it resolves. */
  readonly type: string | undefined;
  readonly traits: readonly string[];
  /** The nearest COLLECTION.md in the note's folder or above it (within kb/), if any. */
  readonly collection: string | undefined;
}

export interface GateCatalog {
  /** Usable gates, sorted by ID. */
  readonly gates: readonly Criterion[];
  /** Why a gate file is not usable (fail), or how it was read leniently (warn: invalid `watches:`). */
  readonly problems: readonly Finding[];
  /** Gate files that exist but are not usable, by ID from their path: their results are neither pairs nor orphans. */
  readonly unusable: ReadonlySet<string>;
}

const NOT_GATES = new Set(['README.md', 'COLLECTION.md']);

/** Loads every gate of the catalog, so status and the sweep select the same gates and report the same problems. */
export async function loadGates(checkoutRoot: string): Promise<GateCatalog> {
  const files = walkFiles(checkoutRoot, GATES_DIR).filter((file) => file.endsWith('.md'));
  const gates: Criterion[] = [];
  const problems: Finding[] = [];
  const unusable = new Set<string>();
  for (const file of files) {
    const relative = file.slice(GATES_DIR.length + 1);
    const segments = relative.split('/');
    if (segments.length !== 2 || NOT_GATES.has(segments[1] as string)) continue;
    const text = readText(checkoutRoot, file);
    if (text === undefined) continue;
    const read = gateFromText(text, file, checkoutRoot);
    problems.push(...read.problems);
    if (read.gate) gates.push(read.gate);
    else unusable.add(relative.slice(0, -'.md'.length));
  }
  gates.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)));
  return { gates, problems, unusable };
}

/** Reads one gate file; a gate whose identity or applicability cannot be trusted is refused with a finding. */
export function gateFromText(text: string, file: string, checkoutRoot: string): { gate?: Criterion; problems: Finding[] } {
  const problems: Finding[] = [];
  const refuse = (message: string, line?: number): { problems: Finding[] } => {
    problems.push({
      file,
      ...(line === undefined ? {} : { line }),
      rule: 'gate-invalid',
      severity: 'fail',
      message: `${message}; the gate is left out of review`,
    });
    return { problems };
  };
  const [lensFromPath, nameFile] = file.slice(GATES_DIR.length + 1).split('/') as [string, string];
  const idFromPath = `${lensFromPath}/${nameFile.slice(0, -'.md'.length)}`;
  const read = noteParts(text, file);
  if (!read.ok) {
    // parseNote says exactly what is wrong and where; it is only needed for a broken gate.
    const parsed = parseNote(new TextEncoder().encode(text), file);
    const findings = parsed.kind === 'unreadable' ? parsed.findings : read.findings;
    return refuse(`frontmatter cannot be read (${findings.map((finding) => finding.message).join('; ')})`, findings[0]?.line);
  }
  if (read.frontmatter === undefined) return refuse('has no frontmatter, so no `gate_id`, `lens` or `watches`', 1);
  const fm = read.frontmatter;
  let lines: Readonly<Record<string, number>> | undefined;
  const line = (key: string): number | undefined => {
    if (lines === undefined) {
      const parsed = parseNote(new TextEncoder().encode(text), file);
      lines = parsed.kind === 'note' ? parsed.note.lines : {};
    }
    return lines[`/frontmatter/${key}`];
  };

  const gateId = fm['gate_id'];
  if (typeof gateId !== 'string') return refuse(`\`gate_id\` must be the string \`${idFromPath}\``, line('gate_id') ?? 1);
  if (gateId !== idFromPath)
    return refuse(`\`gate_id: ${gateId}\` does not match its path, which makes it \`${idFromPath}\`: rename the file or fix gate_id`, line('gate_id'));
  const lens = fm['lens'];
  if (lens !== lensFromPath)
    return refuse(`\`lens\` must be \`${lensFromPath}\` (the folder it is in), found ${JSON.stringify(lens ?? null)}`, line('lens') ?? 1);

  const requiresTrait = fm['requires_trait'];
  if (requiresTrait !== undefined && (typeof requiresTrait !== 'string' || requiresTrait.trim() === '')) {
    return refuse('`requires_trait` must be one trait name', line('requires_trait'));
  }
  let requiresType: string | undefined;
  if (fm['requires_type'] !== undefined) {
    const resolved = resolveKbPath(fm['requires_type'], file, checkoutRoot);
    if (!resolved.ok) return refuse(`\`requires_type\` ${resolved.reason}`, line('requires_type'));
    requiresType = resolved.path;
  }
  const watches = parseWatches(fm['watches']);
  if (!watches.declared && watches.problem !== undefined) {
    problems.push({
      file,
      line: line('watches') ?? 1,
      rule: 'gate-watches',
      severity: 'warn',
      message: `${watches.problem}; this gate watches the whole note (${WATCHED_PARTS.join(', ')})`,
    });
  }
  const staleness = fm['staleness'];
  return {
    problems,
    gate: {
      id: gateId,
      path: file,
      kind: 'gate',
      lens: lensFromPath,
      reportCriterion: false,
      watches: watches.parts,
      watchesDeclared: watches.declared,
      staleness: typeof staleness === 'string' ? staleness : undefined,
      requiresTrait: typeof requiresTrait === 'string' ? requiresTrait.trim() : undefined,
      requiresType,
      sha256: criterionHash(text),
    },
  };
}

export type CriterionLoad =
  | { readonly ok: true; readonly criterion: Criterion }
  | { readonly ok: false; readonly reason: 'gone' | 'not-a-criterion' | 'invalid'; readonly message: string };

/**
 * Loads any criterion by ID: a gate ID from the catalog, or a KB path that is a type
 * spec, a COLLECTION.md or the critique instruction. Other criteria are added here.
 */
export async function loadCriterion(checkoutRoot: string, id: string): Promise<CriterionLoad> {
  const file = isPathCriterion(id) ? id : gatePath(id);
  const text = readText(checkoutRoot, file);
  if (text === undefined) return { ok: false, reason: 'gone', message: `criterion file ${file} does not exist` };
  if (!isPathCriterion(id)) {
    const read = gateFromText(text, file, checkoutRoot);
    if (!read.gate) return { ok: false, reason: 'invalid', message: read.problems.map((problem) => problem.message).join('; ') };
    return { ok: true, criterion: read.gate };
  }
  const whole = {
    watches: WATCHED_PARTS,
    watchesDeclared: false,
    staleness: undefined,
    requiresTrait: undefined,
    requiresType: undefined,
    lens: undefined,
    sha256: criterionHash(text),
  };
  if (id === CRITIQUE_INSTRUCTION) {
    return { ok: true, criterion: { id, path: id, kind: 'instruction', reportCriterion: true, ...whole } };
  }
  const parsed = noteParts(text, id);
  // A type spec or COLLECTION.md watches the whole note unless its frontmatter declares a valid `watches:`.
  const declared = parsed.ok && parsed.frontmatter !== undefined ? parseWatches(parsed.frontmatter['watches']) : undefined;
  const watched = declared?.declared === true ? { ...whole, watches: declared.parts, watchesDeclared: true } : whole;
  if (path.posix.basename(id) === 'COLLECTION.md') {
    return { ok: true, criterion: { id, path: id, kind: 'collection', reportCriterion: false, ...watched } };
  }
  if (parsed.ok && parsed.frontmatter !== undefined) {
    const type = resolveKbPath(parsed.frontmatter['type'], id, checkoutRoot);
    if (type.ok && type.path === TYPE_SPEC_TYPE) return { ok: true, criterion: { id, path: id, kind: 'type-spec', reportCriterion: false, ...watched } };
  }
  return { ok: false, reason: 'not-a-criterion', message: `${id} is not a criterion (a gate, a type spec, a COLLECTION.md or ${CRITIQUE_INSTRUCTION})` };
}

/** The kinds of criteria status pairs and a sweep asks, as `--criteria` names them. */
export const CRITERION_SELECTIONS = ['gates', 'types', 'collections'] as const;
export type CriterionSelection = (typeof CRITERION_SELECTIONS)[number];

/** The `--criteria` kind a criterion belongs to; the critique instruction belongs to none (the full pass asks it). */
export function selectionOf(kind: CriterionKind): CriterionSelection | undefined {
  return kind === 'gate' ? 'gates' : kind === 'type-spec' ? 'types' : kind === 'collection' ? 'collections' : undefined;
}

/** The `--criteria` kind of a criterion ID, from its shape alone (no file read). */
export function selectionOfId(id: string): CriterionSelection | undefined {
  if (!isPathCriterion(id)) return 'gates';
  if (id === CRITIQUE_INSTRUCTION) return undefined;
  return path.posix.basename(id) === 'COLLECTION.md' ? 'collections' : 'types';
}

/** Parses a `--criteria` value (`gates,types`); the message names what is wrong, or the list when it is good. */
export function parseCriterionSelections(text: string): { ok: true; kinds: CriterionSelection[] } | { ok: false; message: string } {
  const written = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const unknown = written.filter((part) => !(CRITERION_SELECTIONS as readonly string[]).includes(part));
  if (written.length === 0 || unknown.length > 0) {
    const what = written.length === 0 ? 'an empty list' : unknown.map((part) => `"${part}"`).join(', ');
    return { ok: false, message: `--criteria must be a comma-separated list of ${CRITERION_SELECTIONS.join(', ')}, got ${what}` };
  }
  return { ok: true, kinds: CRITERION_SELECTIONS.filter((kind) => written.includes(kind)) };
}

/**
 * The kinds a command pairs: the `--criteria` list when given; otherwise all three, or gates only
 * when `--gates` names gates (naming gates chooses gates).
 */
export function commandSelections(criteria: string | undefined, gatesGiven: boolean): ReturnType<typeof parseCriterionSelections> {
  if (criteria !== undefined) return parseCriterionSelections(criteria);
  return { ok: true, kinds: gatesGiven ? ['gates'] : [...CRITERION_SELECTIONS] };
}

export interface PathCriteria {
  /** Type specs and COLLECTION.md files the given notes name, sorted by ID. */
  readonly criteria: readonly Criterion[];
  /** A note's type or collection that is not a usable criterion (warnings: its pairs are left out). */
  readonly problems: readonly Finding[];
}

/**
 * Loads the type specs and COLLECTION.md files that reviewable notes point at: each is a criterion
 * for its cohort (the notes of that type, the notes of that collection).
 */
export async function loadPathCriteria(checkoutRoot: string, notes: readonly ApplicabilityNote[], kinds: readonly CriterionSelection[]): Promise<PathCriteria> {
  const wanted = new Map<string, number>();
  for (const note of notes) {
    if (kinds.includes('types') && note.type !== undefined) wanted.set(note.type, (wanted.get(note.type) ?? 0) + 1);
    if (kinds.includes('collections') && note.collection !== undefined) wanted.set(note.collection, (wanted.get(note.collection) ?? 0) + 1);
  }
  const criteria: Criterion[] = [];
  const problems: Finding[] = [];
  for (const [id, cohort] of wanted) {
    const loaded = await loadCriterion(checkoutRoot, id);
    if (loaded.ok && (loaded.criterion.kind === 'type-spec' || loaded.criterion.kind === 'collection')) {
      criteria.push(loaded.criterion);
      continue;
    }
    const why = loaded.ok ? `${id} is not a type spec` : loaded.message;
    problems.push({
      file: id,
      rule: 'criterion-unusable',
      severity: 'warn',
      message: `${why}; its ${cohort} note${cohort === 1 ? '' : 's'} have no pair with it`,
    });
  }
  criteria.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { criteria, problems };
}

/** The type of type specs: a note of this type is a criterion, not a note under review. */
export const TYPE_SPEC_TYPE = 'kb/types/type-spec.md';

/** Whether a criterion applies to a note: the test pair selection runs once per note and criterion. */
export const applies = (criterion: Criterion, note: ApplicabilityNote): boolean => inapplicability(criterion, note) === undefined;

/** Why a criterion does not apply to a note (for an orphan's message), or undefined when it applies. */
export function inapplicability(criterion: Criterion, note: ApplicabilityNote): string | undefined {
  switch (criterion.kind) {
    case 'gate': {
      if (criterion.requiresTrait !== undefined && !note.traits.includes(criterion.requiresTrait)) {
        return `the note's traits do not include ${criterion.requiresTrait} (requires_trait)`;
      }
      if (criterion.requiresType !== undefined && note.type !== criterion.requiresType) {
        return `the note's type is ${note.type ?? 'unresolved'}, not ${criterion.requiresType} (requires_type)`;
      }
      return undefined;
    }
    case 'type-spec':
      return note.type === criterion.path ? undefined : `the note's type is ${note.type ?? 'unresolved'}, not ${criterion.path}`;
    case 'collection':
      return note.collection === criterion.path ? undefined : `the note is not in the collection of ${criterion.path}`;
    case 'instruction':
      return undefined;
  }
}
