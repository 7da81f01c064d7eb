// The order a model-API sweep asks its units in, and what it says of shared prefixes too short to cache.
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { reviewPrompt } from '../../src/activities/review/prompt.js';
import { noteToolLists, planCachePrefixes } from '../../src/activities/review/sweep/cache-prefix.js';
import { prepareSweep } from '../../src/activities/review/sweep/prepare.js';
import { batchFile } from '../../src/activities/review/sweep/run-dir.js';
import { orderForCache, planUnits, type PlannedPair } from '../../src/activities/review/sweep/units.js';
import { requestParts } from '../../src/harness/executors/api-request.js';
import type { Profile } from '../../src/harness/profiles.js';
import { cachePrefixReport, describeCachePrefixes } from '../../src/harness/prompt-cache.js';
import type { PreparedSweep, SweepInput, SweepUnit } from '../../src/review/sweep-types.js';
import { scratch } from '../helpers/fake.js';
import { kbCopy, exampleKb } from '../helpers/kb.js';

const pairOf = (note: string, criterion: string, lens?: string): PlannedPair => ({
  note: `kb/notes/${note}.md`,
  criterion,
  criterionPath: `kb/instructions/review-gates/${criterion}.md`,
  lens,
  reportCriterion: false,
});
/** Pairs as a selection gives them: note by note. */
const selection = (notes: string[], criteria: string[]) =>
  notes.flatMap((note) => criteria.map((criterion) => pairOf(note, criterion, criterion.split('/')[0])));
const shown = (units: SweepUnit[]) =>
  units.map((unit) => `${unit.note.replace(/^kb\/notes\/|\.md$/g, '')}:${unit.criteria.map((criterion) => criterion.id).join('+')}`);

describe("the order of a model-API sweep's units", () => {
  test('pairs go criterion-major at concurrency 1: every note under one criterion, then the next', () => {
    const units = planUnits(selection(['a', 'b', 'c'], ['frontmatter/x', 'prose/y']), 'pair');
    expect(shown(units)).toEqual(['a:frontmatter/x', 'a:prose/y', 'b:frontmatter/x', 'b:prose/y', 'c:frontmatter/x', 'c:prose/y']);
    expect(shown(orderForCache(units, 1))).toEqual(['a:frontmatter/x', 'b:frontmatter/x', 'c:frontmatter/x', 'a:prose/y', 'b:prose/y', 'c:prose/y']);
  });

  test("at concurrency 2 each criterion's pairs go to one lane and the lanes alternate, so no two of them are asked together", () => {
    const units = planUnits(selection(['a', 'b', 'c'], ['frontmatter/x', 'prose/y', 'sentence/z']), 'pair');
    const ordered = shown(orderForCache(units, 2));
    expect(ordered).toEqual([
      'a:frontmatter/x',
      'a:prose/y',
      'b:frontmatter/x',
      'b:prose/y',
      'c:frontmatter/x',
      'c:prose/y',
      'a:sentence/z',
      'b:sentence/z',
      'c:sentence/z',
    ]);
    // Units sharing a criterion are never neighbours while both lanes have work.
    for (let index = 1; index < 6; index++) expect(ordered[index]!.split(':')[1]).not.toBe(ordered[index - 1]!.split(':')[1]);
  });

  test("bundles go note-major: a note's lens bundles one after another; a unit left single goes with its criterion", () => {
    const pairs = [
      ...selection(['a', 'b'], ['frontmatter/x', 'frontmatter/w', 'prose/y', 'prose/v']),
      pairOf('a', 'types/t', 'types'),
      pairOf('b', 'types/t', 'types'),
    ];
    const units = planUnits(pairs, 'bundle');
    expect(shown(units)).toEqual([
      'a:frontmatter/x+frontmatter/w',
      'a:prose/y+prose/v',
      'b:frontmatter/x+frontmatter/w',
      'b:prose/y+prose/v',
      'a:types/t',
      'b:types/t',
    ]);
    // Selected lens by lens, a note's bundles come apart; ordered, they run together again.
    const lensMajor = planUnits(
      [
        ...selection(['a', 'b'], ['frontmatter/x', 'frontmatter/w']),
        ...selection(['a', 'b'], ['prose/y', 'prose/v']),
        pairOf('a', 'types/t', 'types'),
        pairOf('b', 'types/t', 'types'),
      ],
      'bundle',
    );
    expect(shown(lensMajor).slice(0, 4)).toEqual(['a:frontmatter/x+frontmatter/w', 'b:frontmatter/x+frontmatter/w', 'a:prose/y+prose/v', 'b:prose/y+prose/v']);
    expect(shown(orderForCache(lensMajor, 1))).toEqual([
      'a:frontmatter/x+frontmatter/w',
      'a:prose/y+prose/v',
      'b:frontmatter/x+frontmatter/w',
      'b:prose/y+prose/v',
      'a:types/t',
      'b:types/t',
    ]);
  });

  test('every unit is kept exactly once, whatever the concurrency', () => {
    const units = planUnits(selection(['a', 'b', 'c', 'd', 'e'], ['frontmatter/x', 'prose/y', 'sentence/z']), 'pair');
    for (const concurrency of [1, 2, 4, 16]) expect(shown(orderForCache(units, concurrency)).sort()).toEqual(shown(units).sort());
  });
});

describe('the report of shared prefixes below the cache minimum', () => {
  test('counts the prefixes and units below the minimum and names the shortest first', () => {
    const sizes = new Map([
      ['kb/instructions/review-gates/a.md', { tokens: 900, units: 3 }],
      ['kb/instructions/review-gates/b.md', { tokens: 400, units: 2 }],
      ['kb/instructions/review-gates/c.md', { tokens: 5000, units: 7 }],
    ]);
    const report = cachePrefixReport('claude-haiku-4-5', 4096, sizes);
    expect(report).toMatchObject({ minimumTokens: 4096, prefixes: 3, below: 2, unitsBelow: 5 });
    expect(report.examples.map((example) => example.shared)).toEqual(['kb/instructions/review-gates/b.md', 'kb/instructions/review-gates/a.md']);
    expect(describeCachePrefixes(report)).toBe(
      "5 units (2 of 3 shared prefixes) below claude-haiku-4-5's cache minimum of 4096 tokens: not cached; shortest kb/instructions/review-gates/b.md at ~400",
    );
    expect(describeCachePrefixes(cachePrefixReport('claude-sonnet-4-5', 100, sizes))).toBe(
      "every shared prefix reaches claude-sonnet-4-5's cache minimum (100 tokens)",
    );
  });

  test('a sweep prepared on a model-API profile writes its units criterion-major and reports the criteria too short to cache on its model', async () => {
    const checkout = await kbCopy(exampleKb, { prefix: 'commonplace-unit-order-' });
    const profilesFile = join(checkout, 'profiles.yaml');
    await writeFile(profilesFile, stringify({ profiles: { haiku: { harness: 'anthropic', model: 'claude-haiku-4-5' } } }));
    const notes = ['kb/notes/verifiability-gradient.md', 'kb/notes/why-notes-have-types.md'];
    const input: SweepInput & { runId: string } = {
      checkout,
      runId: 'unit-order',
      notes,
      gates: ['sentence/*'],
      criteria: ['gates'],
      grouping: 'pair',
      profile: 'haiku',
      concurrency: 1,
      batchSize: 100,
      autoResume: false,
      profilesFile,
    };
    const prepared = (await new MockActivityEnvironment().run(prepareSweep, input)) as PreparedSweep;
    const units = JSON.parse(await readFile(batchFile(prepared.runDir, 0), 'utf8')) as SweepUnit[];
    const criteria = units.map((unit) => unit.criteria[0]!.id);
    expect(new Set(criteria).size).toBeGreaterThan(1);
    expect(criteria).toEqual([...criteria].sort((a, b) => criteria.indexOf(a) - criteria.indexOf(b)));
    expect(prepared.cachePrefixes).toMatchObject({ model: 'claude-haiku-4-5', minimumTokens: 4096, prefixes: new Set(criteria).size });
    // The example KB's gates are a few hundred tokens each: none reaches Haiku 4.5's minimum.
    expect(prepared.cachePrefixes!.unitsBelow).toBe(units.length);
  });
});

describe('what a model-API pair puts first', () => {
  const sonnet: Profile = { name: 'sonnet', harness: 'anthropic', model: 'claude-sonnet-4-5', flags: [], timeoutMs: 60_000, attempts: 1, env: {} };
  /** A checkout whose notes and criteria are about `noteTokens` and `criterionTokens` long. */
  async function files(noteTokens: number, criterionTokens: number): Promise<string> {
    const root = await scratch('commonplace-prefix-choice-');
    await mkdir(join(root, 'kb', 'notes'), { recursive: true });
    await mkdir(join(root, 'kb', 'instructions', 'review-gates', 'frontmatter'), { recursive: true });
    await mkdir(join(root, 'kb', 'instructions', 'review-gates', 'prose'), { recursive: true });
    for (const note of ['a', 'b', 'c']) await writeFile(join(root, 'kb', 'notes', `${note}.md`), 'note text '.repeat(Math.ceil((noteTokens * 4) / 10)));
    for (const criterion of ['frontmatter/x', 'prose/y'])
      await writeFile(join(root, 'kb', 'instructions', 'review-gates', `${criterion}.md`), 'criterion text '.repeat(Math.ceil((criterionTokens * 4) / 15)));
    return root;
  }
  const units = () => planUnits(selection(['a', 'b', 'c'], ['frontmatter/x', 'prose/y']), 'pair');

  test("long notes and short criteria on Anthropic: the note goes first, its pairs offering the note's tools, so they share tools, instruction and note", async () => {
    const root = await files(3000, 200);
    const planned = await planCachePrefixes(root, units(), sonnet);
    expect(planned.units.map((unit) => unit.cachePrefix)).toEqual(Array(6).fill('note'));
    // One shared prefix per note (not per pair), each over the minimum.
    expect(planned.report).toMatchObject({ prefixes: 3, below: 0 });
    expect([...noteToolLists(planned.units, 'anthropic').values()]).toEqual(
      Array(3).fill([
        { id: 'frontmatter/x', report: false },
        { id: 'prose/y', report: false },
      ]),
    );
    // OpenAI prepends one json_schema and has no tool to force: a note-first pair's prefix would name its criterion, shared by none.
    const openai = await planCachePrefixes(root, units(), { ...sonnet, harness: 'openai', model: 'gpt-5' });
    expect(openai.units.some((unit) => unit.cachePrefix !== undefined)).toBe(false);
    expect(noteToolLists(openai.units, 'openai').size).toBe(0);
  });

  test("long criteria and short notes: the criterion stays first, and the notes' shortness is not reported", async () => {
    const planned = await planCachePrefixes(await files(200, 3000), units(), sonnet);
    expect(planned.units.some((unit) => unit.cachePrefix !== undefined)).toBe(false);
    expect(planned.report).toMatchObject({ prefixes: 2, below: 0 });
  });

  test("bundles whose lens criteria outweigh their notes put the criteria first and go lens by lens: every note's bundle of a lens in turn", async () => {
    const bundles = planUnits(selection(['a', 'b', 'c'], ['frontmatter/x', 'frontmatter/w']), 'bundle');
    const root = await files(300, 1500);
    await writeFile(join(root, 'kb', 'instructions', 'review-gates', 'frontmatter', 'w.md'), 'criterion text '.repeat(400));
    const planned = await planCachePrefixes(root, bundles, sonnet);
    expect(planned.units.map((unit) => unit.cachePrefix)).toEqual(['criteria', 'criteria', 'criteria']);
    expect(planned.report).toMatchObject({ prefixes: 1, below: 0 });
    // Long notes and short criteria: a bundle's note-first prefix names its lens's criteria, so no other bundle reads it,
    // and writing it costs 1.25× input; the criteria-first prefixes, under the minimum, cost input only: criteria first still.
    const twoLenses = planUnits(selection(['a', 'b', 'c'], ['frontmatter/x', 'frontmatter/w', 'prose/y', 'prose/v']), 'bundle');
    const longNotes = await files(3000, 100);
    for (const criterion of ['frontmatter/w', 'prose/v'])
      await writeFile(join(longNotes, 'kb', 'instructions', 'review-gates', `${criterion}.md`), 'criterion text '.repeat(27));
    const notesFirst = await planCachePrefixes(longNotes, twoLenses, sonnet);
    expect(notesFirst.units.map((unit) => unit.cachePrefix)).toEqual(Array(6).fill('criteria'));
    expect(notesFirst.report).toMatchObject({ prefixes: 2, below: 2 });
  });

  test("a note-first pair's prompt says so, and its request puts the note before the criterion", () => {
    const unit: SweepUnit = { ...units()[0]!, cachePrefix: 'note' };
    expect(
      reviewPrompt({
        unit,
        grouping: 'pair',
        noteInput: 'inputs/note.md',
        criterionInputs: { 'frontmatter/x': 'inputs/c.md' },
        output: 'review.md',
        findings: [],
      }),
    ).toContain('\ncache-prefix = note\n');
    const parts = requestParts({
      grouping: 'pair',
      prefix: 'note',
      note: unit.note,
      noteText: 'the note',
      criteria: [{ id: 'frontmatter/x', text: 'the criterion' }],
      output: 'review.md',
      outcomes: ['pass'],
      refusals: [],
    });
    expect(parts.shared).toMatch(/^<note path="kb\/notes\/a.md">/);
    expect(parts.unit).toMatch(/^<criterion id="frontmatter\/x">/);
    const bundle = requestParts({
      grouping: 'bundle',
      prefix: 'criteria',
      note: unit.note,
      noteText: 'the note',
      criteria: [
        { id: 'frontmatter/x', text: 'one' },
        { id: 'frontmatter/w', text: 'two' },
      ],
      output: 'review.md',
      outcomes: ['pass'],
      refusals: [],
    });
    expect(bundle.shared).toMatch(/^<criterion id="frontmatter\/x">[^]*<criterion id="frontmatter\/w">[^]*<\/criterion>$/);
    expect(bundle.unit).toMatch(/^<note path="kb\/notes\/a.md">[^]*Criteria, in order: frontmatter\/x, frontmatter\/w\./);
  });
});
