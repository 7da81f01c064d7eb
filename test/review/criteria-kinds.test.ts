import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandSelections, parseCriterionSelections } from '../../src/review/criteria.js';
import { reviewStatus, type PairStatus } from '../../src/review/status.js';
import { BUNDLE_CAP_BYTES, NOTE_CRITERIA_LENS, planUnits } from '../../src/activities/review/sweep/units.js';
import { checkBundle } from '../../src/review/result-line.js';
import { runCli } from '../helpers/cli.js';
import { copyToTemp, edit, miniFixture, removeTemps, writeResults } from './helpers.js';

const ALL = ['gates', 'types', 'collections'] as const;

/** The mini KB with a COLLECTION.md over kb/notes and a nested one over kb/notes/definitions. */
async function miniWithCollections(): Promise<string> {
  const root = await copyToTemp(miniFixture);
  await writeFile(path.join(root, 'kb/notes/COLLECTION.md'), '# Notes\n\nEvery note here states one claim in its title.\n');
  await mkdir(path.join(root, 'kb/notes/definitions'), { recursive: true });
  await writeFile(path.join(root, 'kb/notes/definitions/COLLECTION.md'), '# Definitions\n\nEach definition sharpens one term.\n');
  return root;
}

const key = (pair: Pick<PairStatus, 'note' | 'criterion'>) => `${pair.note} × ${pair.criterion}`;

afterAll(removeTemps);

describe('type specs and COLLECTION.md files as criteria', () => {
  test('a note is paired with its type spec and its nearest COLLECTION.md, each pair carrying its kind', async () => {
    const root = await miniWithCollections();
    const status = await reviewStatus(root, { criteria: [...ALL] });
    const others = status.pairs.filter((pair) => pair.kind !== 'gate').map((pair) => [pair.note, pair.criterion, pair.kind]);
    expect(others).toEqual([
      ['kb/notes/claim.md', 'kb/notes/COLLECTION.md', 'collection'],
      ['kb/notes/claim.md', 'kb/types/note.md', 'type'],
      ['kb/notes/definitions/term.md', 'kb/notes/definitions/COLLECTION.md', 'collection'],
      ['kb/notes/definitions/term.md', 'kb/types/definition.md', 'type'],
      ['kb/notes/plain-note.md', 'kb/notes/COLLECTION.md', 'collection'],
      ['kb/notes/plain-note.md', 'kb/types/note.md', 'type'],
    ]);
    expect(status.counts.byKind).toEqual({
      gate: { criteria: 7, pairs: 17, fresh: 0, stale: 0, missing: 17, malformed: 0 },
      type: { criteria: 2, pairs: 3, fresh: 0, stale: 0, missing: 3, malformed: 0 },
      collection: { criteria: 2, pairs: 3, fresh: 0, stale: 0, missing: 3, malformed: 0 },
    });
    expect(status.counts.pairs).toBe(23);
  });

  test("their results sit beside the gates' results, at the KB path of the criterion", async () => {
    const root = await miniWithCollections();
    const pair = (await reviewStatus(root, { criteria: ['types'] })).pairs.find((entry) => entry.note === 'kb/notes/claim.md');
    expect(pair?.resultPath).toBe('kb/reports/state/review/results/notes/claim.md/kb/types/note.md.md');
  });

  test('with gates alone as the kind list, status pairs gates only', async () => {
    const root = await miniWithCollections();
    const status = await reviewStatus(root, { criteria: ['gates'] });
    expect(status.pairs.every((pair) => pair.kind === 'gate')).toBe(true);
    expect(status.counts.byKind.type.pairs + status.counts.byKind.collection.pairs).toBe(0);
  });

  test('editing a type spec stales exactly its cohort, for that criterion, and no other pair changes', async () => {
    const root = await miniWithCollections();
    const before = await reviewStatus(root, { criteria: [...ALL] });
    await writeResults(root, before.pairs);
    expect((await reviewStatus(root, { criteria: [...ALL] })).counts).toMatchObject({ pairs: 23, fresh: 23 });

    await edit(root, 'kb/types/note.md', (text) => text.replace('# ', '# Edited: '));
    const after = await reviewStatus(root, { criteria: [...ALL] });
    const changed = after.pairs.filter((pair) => pair.status !== 'fresh');
    expect(changed.map(key)).toEqual(['kb/notes/claim.md × kb/types/note.md', 'kb/notes/plain-note.md × kb/types/note.md']);
    expect(changed.every((pair) => pair.status === 'stale' && pair.staleBecause === 'criterion')).toBe(true);
    expect(after.counts).toMatchObject({ pairs: 23, fresh: 21, stale: 2, staleCriterion: 2, missing: 0, orphans: 0 });
  });

  test('editing a COLLECTION.md stales the notes of its collection and not those of a nested one', async () => {
    const root = await miniWithCollections();
    await writeResults(root, (await reviewStatus(root, { criteria: [...ALL] })).pairs);
    await edit(root, 'kb/notes/COLLECTION.md', (text) => `${text}\nA new convention.\n`);
    const stale = (await reviewStatus(root, { criteria: [...ALL] })).pairs.filter((pair) => pair.status !== 'fresh');
    expect(stale.map(key)).toEqual(['kb/notes/claim.md × kb/notes/COLLECTION.md', 'kb/notes/plain-note.md × kb/notes/COLLECTION.md']);
  });

  test('a type spec that declares watches: covers only those parts of its notes', async () => {
    const root = await miniWithCollections();
    await edit(root, 'kb/types/note.md', (text) => text.replace('schema: null', 'schema: null\nwatches: [body]'));
    const pairs = await reviewStatus(root, { criteria: ['types'] });
    expect(pairs.pairs.filter((pair) => pair.criterion === 'kb/types/note.md').map((pair) => pair.watches)).toEqual([['body'], ['body']]);
    await writeResults(root, pairs.pairs);
    await edit(root, 'kb/notes/claim.md', (text) => text.replace('description: A claim note', 'description: An edited claim note'));
    const claim = (await reviewStatus(root, { criteria: [...ALL] })).pairs.filter((pair) => pair.note === 'kb/notes/claim.md' && pair.kind === 'type');
    expect(claim.map((pair) => pair.status)).toEqual(['fresh']);
  });

  test('a type spec result of a note that changed type is an orphan that no longer applies', async () => {
    const root = await miniWithCollections();
    await writeResults(root, (await reviewStatus(root, { criteria: ['types'] })).pairs);
    await edit(root, 'kb/notes/claim.md', (text) => text.replace('type: kb/types/note.md', 'type: kb/types/definition.md'));
    const status = await reviewStatus(root, { criteria: ['types'] });
    expect(status.orphans.map((orphan) => [orphan.criterion, orphan.reason])).toEqual([['kb/types/note.md', 'not-applicable']]);
    expect(status.pairs.find((pair) => pair.note === 'kb/notes/claim.md')).toMatchObject({ criterion: 'kb/types/definition.md', status: 'missing' });
  });

  test('--gates patterns narrow the gates and leave the selected type and collection criteria in', async () => {
    const root = await miniWithCollections();
    const status = await reviewStatus(root, { gates: ['prose/*'], criteria: [...ALL] });
    expect(status.counts.byKind).toMatchObject({ gate: { pairs: 3 }, type: { pairs: 3 }, collection: { pairs: 3 } });
  });
});

describe('--criteria', () => {
  test.each([
    ['gates,types,collections', ['gates', 'types', 'collections']],
    ['collections, gates', ['gates', 'collections']],
    ['types', ['types']],
  ])('%s selects %j', (text, kinds) => {
    expect(parseCriterionSelections(text)).toEqual({ ok: true, kinds });
  });

  test.each(['', 'gate', 'types,notes'])('%j is refused with a message naming --criteria', (text) => {
    const parsed = parseCriterionSelections(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.message).toMatch(/^--criteria must be a comma-separated list of gates, types, collections, got /);
  });

  test('absent, it is all three kinds, or gates only when --gates names gates', () => {
    expect(commandSelections(undefined, false)).toEqual({ ok: true, kinds: ['gates', 'types', 'collections'] });
    expect(commandSelections(undefined, true)).toEqual({ ok: true, kinds: ['gates'] });
    expect(commandSelections('types', true)).toEqual({ ok: true, kinds: ['types'] });
  });

  test('review status counts and lists the pairs of every kind by default', async () => {
    const root = await miniWithCollections();
    const run = await runCli(['review', 'status', '--stale', '--kb', root], { env: { NO_COLOR: '1' } });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^pairs +23 {2}3 notes × 7 gates, 2 type specs, 2 collections, where the criterion applies$/m);
    expect(run.stdout).toMatch(/^ {2}by kind +gate 17 \(missing 17\); type 3 \(missing 3\); collection 3 \(missing 3\)$/m);
    expect(run.stdout).toContain('  missing             kb/notes/definitions/term.md  kb/types/definition.md (type)\n');
  });

  test('review status --criteria types counts only the type pairs', async () => {
    const root = await miniWithCollections();
    const run = await runCli(['review', 'status', '--criteria', 'types', '--kb', root], { env: { NO_COLOR: '1' } });
    expect(run.stdout).toMatch(/^ {2}by kind +gate 0; type 3 \(missing 3\); collection 0$/m);
  });

  test.each([[['review', 'status', '--criteria', 'bogus']], [['review', 'run', 'gates', '--criteria', 'gates,bogus']]])(
    '%j is a usage error (exit 1) naming the option',
    async (args) => {
      const root = await miniWithCollections();
      const run = await runCli([...args, '--kb', root]);
      expect(run.exitCode).toBe(1);
      expect(String(run.stderr).split('\n')[0]).toMatch(/--criteria must be a comma-separated list of gates, types, collections, got "bogus"/);
    },
  );
});

describe('bundle grouping', () => {
  const pair = (note: string, criterion: string, lens?: string) => ({
    note,
    criterion,
    criterionPath: lens ? `kb/instructions/review-gates/${criterion}.md` : criterion,
    lens,
    reportCriterion: false,
  });
  const pairs = [
    pair('kb/notes/a.md', 'kb/notes/COLLECTION.md'),
    pair('kb/notes/a.md', 'kb/types/note.md'),
    pair('kb/notes/a.md', 'prose/one', 'prose'),
    pair('kb/notes/a.md', 'prose/two', 'prose'),
    pair('kb/notes/a.md', 'sentence/three', 'sentence'),
  ];
  const sized = (bytes: Record<string, number>) => ({ bytes: (file: string) => bytes[file] ?? 1000, cap: BUNDLE_CAP_BYTES });

  test("a note's type and collection criteria join its first lens bundle when the inputs stay within the cap", () => {
    const units = planUnits(pairs, 'bundle', sized({}));
    expect(units.map((unit) => [unit.lens, unit.criteria.map((criterion) => criterion.id)])).toEqual([
      ['prose', ['prose/one', 'prose/two', 'kb/notes/COLLECTION.md', 'kb/types/note.md']],
      ['sentence', ['sentence/three']],
    ]);
  });

  test('they join the next lens bundle that has room when the first would pass the cap', () => {
    const units = planUnits(pairs, 'bundle', sized({ 'kb/instructions/review-gates/prose/one.md': BUNDLE_CAP_BYTES - 2500 }));
    expect(units.map((unit) => unit.criteria.length)).toEqual([2, 3]);
  });

  test('with no bundle that has room they are bundled together, and asked one by one when even that is too big', () => {
    const gatesFull = { 'kb/instructions/review-gates/prose/one.md': BUNDLE_CAP_BYTES, 'kb/instructions/review-gates/sentence/three.md': BUNDLE_CAP_BYTES };
    expect(planUnits(pairs, 'bundle', sized(gatesFull)).map((unit) => unit.lens)).toEqual(['prose', 'sentence', NOTE_CRITERIA_LENS]);
    const allBig = { ...gatesFull, 'kb/types/note.md': BUNDLE_CAP_BYTES / 2, 'kb/notes/COLLECTION.md': BUNDLE_CAP_BYTES / 2 };
    expect(planUnits(pairs, 'bundle', sized(allBig)).map((unit) => unit.lens)).toEqual(['prose', 'sentence', 'kb/notes/COLLECTION.md', 'kb/types/note.md']);
  });

  test('pair grouping asks each type and collection criterion as its own unit', () => {
    expect(planUnits(pairs, 'pair').map((unit) => unit.criteria.length)).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('a bundle answer with type and collection sections', () => {
  test('a `## kb/….md` heading opens the section of that criterion, beside gate sections', () => {
    const text = ['## prose/one', '', 'Fine.', '', 'Result: pass', '', '## kb/types/note.md', '', '## Findings', '', 'Conforms.', '', 'Result: warn', ''].join(
      '\n',
    );
    const check = checkBundle(text, ['prose/one', 'kb/types/note.md'], { file: 'review.md' });
    expect(check.accepted.map((section) => [section.gate, section.outcome])).toEqual([
      ['prose/one', 'pass'],
      ['kb/types/note.md', 'warn'],
    ]);
    expect(check.rejected).toEqual([]);
    expect(check.missing).toEqual([]);
  });
});
