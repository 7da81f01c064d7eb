import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { loadGates } from '../../src/review/criteria.js';
import { ReviewError } from '../../src/review/errors.js';
import { noteHash, criterionHash } from '../../src/review/hash.js';
import { RESULTS_DIR, resultPath } from '../../src/review/paths.js';
import { formatResultFile, writeResultFile } from '../../src/review/result-file.js';
import { findOrphans, reviewStatus, selectPairs, type PairStatus, type ReviewStatus } from '../../src/review/status.js';
import { pruneOrphans } from '../../src/review/prune.js';
import { copyToTemp, corpusFixture, edit, miniFixture, recordFor, removeTemps, writeResults } from './helpers.js';

afterAll(removeTemps);

const key = (pair: Pick<PairStatus, 'note' | 'criterion'>): string => `${pair.note} × ${pair.criterion}`;
const notFresh = (status: ReviewStatus): Record<string, string> =>
  Object.fromEntries(
    status.pairs
      .filter((pair) => pair.status !== 'fresh')
      .map((pair) => [key(pair), pair.staleBecause === undefined ? pair.status : `stale(${pair.staleBecause})`]),
  );

/** A fresh copy of the mini KB with a result for every pair, written by the real writer. */
async function freshMini(): Promise<string> {
  const root = await copyToTemp(miniFixture);
  await writeResults(root, await selectPairs(root, { criteria: ['gates'] }));
  return root;
}

describe('pairs and applicability on the small KB', () => {
  let status: ReviewStatus;
  beforeAll(async () => {
    status = await reviewStatus(await copyToTemp(miniFixture), { criteria: ['gates'] });
  });

  test('selects the 17 applicable pairs of 3 reviewable notes × 7 gates, all missing before any review', () => {
    expect(status.counts).toMatchObject({ notes: 3, gates: 7, pairs: 17, missing: 17, fresh: 0, stale: 0, malformed: 0, orphans: 0 });
    expect(new Set(status.pairs.map((pair) => pair.note))).toEqual(new Set(['kb/notes/claim.md', 'kb/notes/plain-note.md', 'kb/notes/definitions/term.md']));
  });

  test('requires_trait keeps a gate to notes whose traits list holds the trait', () => {
    expect(status.pairs.filter((pair) => pair.criterion === 'frontmatter/title-gate').map((pair) => pair.note)).toEqual(['kb/notes/claim.md']);
  });

  test('requires_type keeps a gate to notes whose type resolves to it, a relative type path included', () => {
    expect(status.pairs.filter((pair) => pair.criterion === 'semantic/definition-gate').map((pair) => pair.note)).toEqual(['kb/notes/definitions/term.md']);
  });

  test('each pair carries its criterion, lens, kind, watches, hashes and result path', () => {
    const pair = status.pairs.find((candidate) => key(candidate) === 'kb/notes/claim.md × frontmatter/title-gate');
    expect(pair).toMatchObject({
      criterionPath: 'kb/instructions/review-gates/frontmatter/title-gate.md',
      lens: 'frontmatter',
      reportCriterion: false,
      watches: ['title'],
      resultPath: 'kb/reports/state/review/results/notes/claim.md/frontmatter/title-gate.md',
      status: 'missing',
    });
    expect(pair?.noteSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(status.pairs.find((candidate) => candidate.criterion === 'structural/whole-gate')?.watches).toEqual(['title', 'description', 'body', 'frontmatter']);
  });

  test('the pair hashes are the exported hash functions over the current files', async () => {
    const root = status.checkoutRoot;
    const pair = status.pairs.find((candidate) => key(candidate) === 'kb/notes/plain-note.md × frontmatter/description-gate') as PairStatus;
    const { readFile } = await import('node:fs/promises');
    expect(pair.noteSha256).toBe(noteHash(await readFile(path.join(root, pair.note), 'utf8'), ['title', 'description']));
    expect(pair.criterionSha256).toBe(criterionHash(await readFile(path.join(root, pair.criterionPath), 'utf8')));
  });

  test('a gate with an invalid watches: is used, watching the whole note, and reported as a warning', () => {
    expect(status.problems).toEqual([
      expect.objectContaining({ file: 'kb/instructions/review-gates/structural/bad-watches.md', severity: 'warn', rule: 'gate-watches' }),
    ]);
    expect(status.pairs.find((pair) => pair.criterion === 'structural/bad-watches')?.watches).toEqual(['title', 'description', 'body', 'frontmatter']);
  });

  test.each([
    [{ gates: ['prose/*'] }, 3],
    [{ gates: ['structural'] }, 9],
    [{ gates: ['frontmatter/title-gate', 'semantic/*'] }, 2],
    [{ notes: ['kb/notes/claim.md'] }, 6],
    [{ notes: ['notes/definitions'] }, 6],
    [{ notes: ['kb/notes/*.md'] }, 11],
    [{ notes: ['kb/notes/**'], gates: ['frontmatter/*'] }, 4],
  ])('the selection %j holds %i pairs', async (options, pairs) => {
    expect((await reviewStatus(status.checkoutRoot, { ...options, criteria: ['gates'] })).counts.pairs).toBe(pairs);
  });

  test.each([
    [{ notes: ['kb/notes/nothing/**'] }, 'kb/notes/nothing/**: matches no reviewable note'],
    [{ notes: ['kb/notes/README.md'] }, 'kb/notes/README.md: README.md is a landing file, not a note'],
    [{ notes: ['kb/notes/text.md'] }, 'kb/notes/text.md: it is plain text (no frontmatter)'],
    [{ gates: ['prose/*', 'nolens/*'] }, 'nolens/*: matches no gate; gates are {lens}/{name} with lenses frontmatter, prose, semantic, structural'],
  ])('a pattern that matches nothing is bad input: %j', async (options, message) => {
    const attempt = reviewStatus(status.checkoutRoot, { ...options, criteria: ['gates'] });
    await expect(attempt).rejects.toThrow(ReviewError);
    await expect(attempt).rejects.toThrow(message);
  });
});

describe('gate problems on the small KB', () => {
  test.each([
    [
      'a gate_id that does not match its path',
      (text: string) => text.replace('gate_id: prose/body-gate', 'gate_id: prose/other-gate'),
      2,
      '`gate_id: prose/other-gate` does not match its path, which makes it `prose/body-gate`: rename the file or fix gate_id; the gate is left out of review',
    ],
    [
      'a lens that is not its folder',
      (text: string) => text.replace('lens: prose', 'lens: semantic'),
      6,
      '`lens` must be `prose` (the folder it is in), found "semantic"',
    ],
    ['frontmatter that does not parse', (text: string) => text.replace('watches: [body]', 'watches: [body'), undefined, 'frontmatter cannot be read'],
    [
      'a requires_type outside the repository',
      (text: string) => text.replace('staleness: changed', 'staleness: changed\nrequires_type: ../../../../../x.md'),
      9,
      '`requires_type` `../../../../../x.md` resolves outside the repository',
    ],
  ])('%s refuses the gate with a located problem, and keeps its results as neither pairs nor orphans', async (_name, change, line, message) => {
    const root = await freshMini();
    await edit(root, 'kb/instructions/review-gates/prose/body-gate.md', change);
    const status = await reviewStatus(root, { criteria: ['gates'] });
    const problem = status.problems.find((candidate) => candidate.rule === 'gate-invalid');
    expect(problem).toMatchObject({ file: 'kb/instructions/review-gates/prose/body-gate.md', severity: 'fail' });
    if (line !== undefined) expect(problem?.line).toBe(line);
    expect(problem?.message).toContain(message);
    expect(status.counts).toMatchObject({ gates: 6, pairs: 14, fresh: 14, orphans: 0, outside: 3 });
  });
});

describe('freshness on the small KB', () => {
  test('with a result for every pair, every pair is fresh', async () => {
    const status = await reviewStatus(await freshMini(), { criteria: ['gates'] });
    expect(status.counts).toMatchObject({ pairs: 17, fresh: 17, stale: 0, missing: 0, malformed: 0, orphans: 0, strays: 0, outside: 0 });
    expect(status.pairs[0]?.result).toMatchObject({ outcome: 'pass', profile: 'fake', model: 'fake-model' });
  });

  test('a whitespace-only edit of a note leaves every pair fresh', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/plain-note.md', (text) => `${text.replace(/\n/g, '  \r\n').replace('# Plain note', '#  Plain  note')}\n\n\n`);
    expect(notFresh(await reviewStatus(root, { criteria: ['gates'] }))).toEqual({});
  });

  test('a body edit stales exactly that note’s pairs whose criterion watches the body', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/plain-note.md', (text) => text.replace('Some prose', 'Some other prose'));
    expect(notFresh(await reviewStatus(root, { criteria: ['gates'] }))).toEqual({
      'kb/notes/plain-note.md × prose/body-gate': 'stale(note)',
      'kb/notes/plain-note.md × structural/whole-gate': 'stale(note)',
      'kb/notes/plain-note.md × structural/bad-watches': 'stale(note)',
    });
  });

  test('a description edit stales the pairs watching the description or the frontmatter', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/claim.md', (text) => text.replace('A claim note of the fixture', 'A claim-bearing note of the fixture'));
    expect(notFresh(await reviewStatus(root, { criteria: ['gates'] }))).toEqual({
      'kb/notes/claim.md × frontmatter/description-gate': 'stale(note)',
      'kb/notes/claim.md × structural/meta-gate': 'stale(note)',
      'kb/notes/claim.md × structural/whole-gate': 'stale(note)',
      'kb/notes/claim.md × structural/bad-watches': 'stale(note)',
    });
  });

  test('a title edit stales the pairs watching the title or the body', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/claim.md', (text) => text.replace('# Freshness is a pure function', '# Freshness is a total function'));
    expect(Object.keys(notFresh(await reviewStatus(root, { criteria: ['gates'] }))).sort()).toEqual([
      'kb/notes/claim.md × frontmatter/description-gate',
      'kb/notes/claim.md × frontmatter/title-gate',
      'kb/notes/claim.md × prose/body-gate',
      'kb/notes/claim.md × structural/bad-watches',
      'kb/notes/claim.md × structural/whole-gate',
    ]);
  });

  test('a gate edit stales exactly that gate’s pairs, as criterion changed', async () => {
    const root = await freshMini();
    await edit(root, 'kb/instructions/review-gates/prose/body-gate.md', (text) => text.replace('Read the body.', 'Read the whole body.'));
    expect(notFresh(await reviewStatus(root, { criteria: ['gates'] }))).toEqual({
      'kb/notes/claim.md × prose/body-gate': 'stale(criterion)',
      'kb/notes/definitions/term.md × prose/body-gate': 'stale(criterion)',
      'kb/notes/plain-note.md × prose/body-gate': 'stale(criterion)',
    });
  });

  test('a note edit and a gate edit together stale the shared pair as both', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/plain-note.md', (text) => text.replace('Some prose', 'Some other prose'));
    await edit(root, 'kb/instructions/review-gates/prose/body-gate.md', (text) => text.replace('Read the body.', 'Read the whole body.'));
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(notFresh(status)).toMatchObject({
      'kb/notes/plain-note.md × prose/body-gate': 'stale(both)',
      'kb/notes/claim.md × prose/body-gate': 'stale(criterion)',
      'kb/notes/plain-note.md × structural/whole-gate': 'stale(note)',
    });
    expect(status.counts).toMatchObject({ stale: 5, staleNote: 2, staleCriterion: 2, staleBoth: 1, fresh: 12 });
  });

  test('a deleted result makes its pair missing', async () => {
    const root = await freshMini();
    await rm(path.join(root, resultPath('kb/notes/claim.md', 'frontmatter/title-gate')));
    expect(notFresh(await reviewStatus(root, { criteria: ['gates'] }))).toEqual({ 'kb/notes/claim.md × frontmatter/title-gate': 'missing' });
  });

  test('a malformed result is its own status, never fresh, with the findings that refuse it', async () => {
    const root = await freshMini();
    const where = resultPath('kb/notes/claim.md', 'prose/body-gate');
    await edit(root, where, (text) => text.replace(/^outcome: pass$/m, 'outcome: fine'));
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(notFresh(status)).toEqual({ 'kb/notes/claim.md × prose/body-gate': 'malformed' });
    expect(status.pairs.find((pair) => pair.resultPath === where)?.findings).toEqual([
      expect.objectContaining({ file: where, rule: 'result-outcome', line: 6 }),
    ]);
    expect(status.counts.malformed).toBe(1);
  });

  test('a gate result recording the outcome `report` is malformed: gates are verdict criteria', async () => {
    const root = await freshMini();
    const pair = (await selectPairs(root, { gates: ['prose/body-gate'], notes: ['kb/notes/claim.md'], criteria: ['gates'] }))[0] as PairStatus;
    await writeResultFile(root, recordFor(pair, { outcome: 'report' }), { fsync: false });
    const judged = (await selectPairs(root, { criteria: ['gates'] })).find((candidate) => candidate.resultPath === pair.resultPath);
    expect(judged).toMatchObject({ status: 'malformed', findings: [expect.objectContaining({ rule: 'result-outcome' })] });
  });
});

describe('orphans on the small KB', () => {
  test('a deleted note makes its results orphans (note gone), and pruning deletes them and their emptied directories', async () => {
    const root = await freshMini();
    await rm(path.join(root, 'kb/notes/definitions/term.md'));
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(status.counts).toMatchObject({ pairs: 11, fresh: 11, orphans: 6 });
    expect(status.orphans.every((orphan) => orphan.reason === 'note-gone' && orphan.note === 'kb/notes/definitions/term.md')).toBe(true);
    expect(status.orphans[0]?.detail).toBe('note kb/notes/definitions/term.md does not exist');

    const report = await pruneOrphans(root, status.orphans);
    expect(report.deleted).toHaveLength(6);
    expect(report.kept).toEqual([]);
    expect(report.removedDirs).toContain(`${RESULTS_DIR}/notes/definitions`);
    expect(report.removedDirs).toContain(`${RESULTS_DIR}/notes/definitions/term.md`);
    expect(await readdir(path.join(root, RESULTS_DIR, 'notes'))).toEqual(['claim.md', 'plain-note.md']);
    expect((await reviewStatus(root, { criteria: ['gates'] })).counts).toMatchObject({ orphans: 0, fresh: 11 });
  });

  test('a deleted gate makes its results orphans (criterion gone)', async () => {
    const root = await freshMini();
    await rm(path.join(root, 'kb/instructions/review-gates/prose/body-gate.md'));
    const orphans = await findOrphans(root, { criteria: ['gates'] });
    expect(orphans.map((orphan) => [orphan.reason, orphan.note, orphan.criterion])).toEqual([
      ['criterion-gone', 'kb/notes/claim.md', 'prose/body-gate'],
      ['criterion-gone', 'kb/notes/definitions/term.md', 'prose/body-gate'],
      ['criterion-gone', 'kb/notes/plain-note.md', 'prose/body-gate'],
    ]);
    expect(orphans[0]?.detail).toBe('criterion file kb/instructions/review-gates/prose/body-gate.md does not exist');
  });

  test('a removed trait makes the gate’s result an orphan (not applicable)', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/claim.md', (text) => text.replace('traits: [title-as-claim]', 'traits: []'));
    const orphans = await findOrphans(root, { criteria: ['gates'] });
    expect(orphans).toEqual([
      expect.objectContaining({
        reason: 'not-applicable',
        criterion: 'frontmatter/title-gate',
        detail: "frontmatter/title-gate no longer applies: the note's traits do not include title-as-claim (requires_trait)",
      }),
    ]);
  });

  test('a note that lost its type is no longer reviewable, so its results are orphans (not applicable)', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/plain-note.md', (text) => text.replace('type: kb/types/note.md\n', ''));
    const orphans = await findOrphans(root, { criteria: ['gates'] });
    expect(orphans).toHaveLength(5);
    expect(orphans[0]?.detail).toBe('note kb/notes/plain-note.md is not reviewable: it has no `type:`');
  });

  test('a note whose frontmatter breaks keeps its results: not orphans, and a problem to fix', async () => {
    const root = await freshMini();
    await edit(root, 'kb/notes/plain-note.md', (text) => text.replace('traits: []', 'traits: [unclosed'));
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(status.orphans).toEqual([]);
    expect(status.counts).toMatchObject({ pairs: 12, outside: 5 });
    expect(status.problems).toContainEqual(expect.objectContaining({ file: 'kb/notes/plain-note.md', rule: 'note-unreadable' }));
  });

  test('a result of another criterion (the critique instruction) is a valid result outside the gate pairs, until its criterion goes', async () => {
    const root = await freshMini();
    const critique = { note: 'kb/notes/claim.md', criterion: 'kb/instructions/critique-note.md' };
    await writeResultFile(
      root,
      { ...recordFor({ ...critique, noteSha256: 'b'.repeat(64), criterionSha256: 'c'.repeat(64), reportCriterion: true } as PairStatus) },
      { fsync: false },
    );
    expect((await reviewStatus(root, { criteria: ['gates'] })).counts).toMatchObject({ orphans: 0, outside: 1, fresh: 17 });
    await rm(path.join(root, critique.criterion));
    expect(await findOrphans(root, { criteria: ['gates'] })).toEqual([
      expect.objectContaining({ ...critique, reason: 'criterion-gone', resultPath: resultPath(critique.note, critique.criterion) }),
    ]);
  });

  test('stray files in the results tree are listed with findings and never pruned', async () => {
    const root = await freshMini();
    const strayDir = path.join(root, RESULTS_DIR, 'notes/gone.md/prose');
    await mkdir(strayDir, { recursive: true });
    await writeFile(path.join(strayDir, 'x.md'), 'not a result\n');
    await writeFile(path.join(root, RESULTS_DIR, 'notes', 'notes.txt'), 'scratch\n');
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(status.strays.map((stray) => [stray.path, stray.findings[0]?.rule])).toEqual([
      [`${RESULTS_DIR}/notes/gone.md/prose/x.md`, 'result-frontmatter'],
      [`${RESULTS_DIR}/notes/notes.txt`, 'result-path'],
    ]);
    expect(status.orphans).toEqual([]);
  });

  test('pruning keeps an orphan that changed after it was found', async () => {
    const root = await freshMini();
    await rm(path.join(root, 'kb/notes/definitions/term.md'));
    const orphans = await findOrphans(root, { criteria: ['gates'] });
    const changed = orphans[0]?.resultPath as string;
    await edit(root, changed, (text) => text.replace('Reviewed', 'Re-reviewed'));
    const report = await pruneOrphans(root, orphans);
    expect(report.kept).toEqual([{ path: changed, reason: 'changed since it was found; run status again' }]);
    expect(report.deleted).toHaveLength(orphans.length - 1);
  });

  test('orphans are limited to the selection when patterns are given', async () => {
    const root = await freshMini();
    await rm(path.join(root, 'kb/notes/definitions/term.md'));
    expect(await findOrphans(root, { gates: ['prose/*'], criteria: ['gates'] })).toHaveLength(1);
    expect(await findOrphans(root, { notes: ['kb/notes/claim.md'], criteria: ['gates'] })).toEqual([]);
  });
});

/**
 * The shared corpus at scale: 359 reviewable notes (typed notes under kb/notes and
 * kb/agentic-systems; not the 6 README/COLLECTION landing files, the 2 plain-text
 * notes or the type spec kb/notes/types/structured-claim.md) × 42 gates. 7 gates
 * require the title-as-claim trait (222 notes carry it) and 1 requires the
 * definition type (23 notes): 34 × 359 + 7 × 222 + 23 = 13,783 pairs.
 */
describe('the shared corpus', () => {
  const PAIRS = 13_783;
  let root: string;
  let full: ReviewStatus;

  beforeAll(async () => {
    root = await copyToTemp(corpusFixture, 'commonplace-review-corpus-');
    const pairs = await selectPairs(root, { criteria: ['gates'] });
    await writeResults(root, pairs);
    full = await reviewStatus(root, { criteria: ['gates'] });
  }, 120_000);

  test(`has ${PAIRS} applicable pairs: 359 notes × 42 gates after requires_trait and requires_type`, async () => {
    expect(full.counts).toMatchObject({ notes: 359, gates: 42, pairs: PAIRS });
    const catalog = await loadGates(root);
    expect(catalog.gates).toHaveLength(42);
    expect(catalog.problems).toEqual([]);
    const perGate = new Map<string, number>();
    for (const pair of full.pairs) perGate.set(pair.criterion, (perGate.get(pair.criterion) ?? 0) + 1);
    const trait = catalog.gates.filter((gate) => gate.requiresTrait === 'title-as-claim').map((gate) => gate.id);
    const type = catalog.gates.filter((gate) => gate.requiresType === 'kb/types/definition.md').map((gate) => gate.id);
    expect(trait).toHaveLength(7);
    expect(type).toEqual(['semantic/explication-quality']);
    for (const gate of catalog.gates) {
      expect([gate.id, perGate.get(gate.id)]).toEqual([gate.id, trait.includes(gate.id) ? 222 : type.includes(gate.id) ? 23 : 359]);
    }
  });

  test('with a full set of result files written by the writer, every pair is fresh', () => {
    expect(full.counts).toMatchObject({ fresh: PAIRS, stale: 0, missing: 0, malformed: 0, orphans: 0, strays: 0, outside: 0, problems: 0 });
  });

  test('requires_trait and requires_type are honoured note by note', () => {
    const withoutTrait = full.pairs.filter((pair) => pair.note === 'kb/notes/agent-memory-README.md').map((pair) => pair.criterion);
    expect(withoutTrait).toHaveLength(34);
    expect(withoutTrait).not.toContain('frontmatter/title-as-claim');
    expect(withoutTrait).not.toContain('semantic/explication-quality');
    const definition = full.pairs.filter((pair) => pair.note === 'kb/notes/definitions/lineage.md').map((pair) => pair.criterion);
    expect(definition).toContain('semantic/explication-quality');
  });

  // The edits below run in order on the one copy, each on top of the ones before.
  const NOTE = 'kb/notes/definitions/lineage.md';

  test('editing one note’s body stales exactly its body-watching pairs, as note changed', async () => {
    await edit(root, NOTE, (text) => text.replace(/\n([A-Z][a-z]+) /, '\n$1 really '));
    const status = await reviewStatus(root, { criteria: ['gates'] });
    const expected = full.pairs.filter((pair) => pair.note === NOTE && pair.watches.includes('body')).map(key);
    expect(expected.length).toBeGreaterThan(30);
    expect(Object.keys(notFresh(status)).sort()).toEqual(expected.sort());
    expect(Object.values(notFresh(status)).every((state) => state === 'stale(note)')).toBe(true);
    expect(full.pairs.filter((pair) => pair.note === NOTE && !pair.watches.includes('body')).map((pair) => pair.criterion)).toEqual([
      'frontmatter/description-discrimination',
    ]);
  });

  test('editing one gate stales exactly that gate’s pairs, as criterion changed (both where the note changed too)', async () => {
    await edit(root, 'kb/instructions/review-gates/prose/source-residue.md', (text) => text.replace('## Test', '## Test\n\nRead slowly.'));
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(status.counts).toMatchObject({ staleCriterion: 358, staleBoth: 1 });
    expect(status.pairs.filter((pair) => pair.staleBecause === 'criterion').every((pair) => pair.criterion === 'prose/source-residue')).toBe(true);
    expect(status.pairs.find((pair) => key(pair) === `${NOTE} × prose/source-residue`)?.staleBecause).toBe('both');
  });

  test('deleting a result makes exactly that pair missing, and deleting a note makes its results orphans', async () => {
    await rm(path.join(root, resultPath('kb/notes/agent-memory-README.md', 'prose/pseudo-formalism')));
    await rm(path.join(root, 'kb/notes/agent-memory-README.md'));
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(status.counts.missing).toBe(0);
    expect(status.counts.pairs).toBe(PAIRS - 34);
    expect(status.orphans).toHaveLength(33);
    expect(new Set(status.orphans.map((orphan) => orphan.reason))).toEqual(new Set(['note-gone']));
    await rm(path.join(root, resultPath('kb/notes/links-README.md', 'prose/pseudo-formalism')));
    const links = await reviewStatus(root, { notes: ['kb/notes/links-README.md'], criteria: ['gates'] });
    expect(notFresh(links)).toEqual({
      'kb/notes/links-README.md × prose/pseudo-formalism': 'missing',
      'kb/notes/links-README.md × prose/source-residue': 'stale(criterion)',
    });
  });

  test('the written results are exactly what the writer formats, one file per pair', async () => {
    const pair = full.pairs[0] as PairStatus;
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(path.join(root, pair.resultPath), 'utf8')).toBe(formatResultFile(recordFor(pair)));
  });
});
