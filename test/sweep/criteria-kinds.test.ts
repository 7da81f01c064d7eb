import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import { runCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { address } = useDevServerWithCliWorker();

const KINDS = ['gates', 'types', 'collections'] as const;

describe('review run gates over type specs and COLLECTION.md files', () => {
  test('--criteria types,collections sweeps each note against its type spec and its collection, and writes their results', async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(2);
    const { scenario, ledger } = await fakeScenario(await scratch(), [{ attempts: [{ review: 'pass', outcomes: { 'kb/notes/COLLECTION.md': 'warn' } }] }]);
    const run = await runCli(
      [
        'review',
        'run',
        'gates',
        '--kb',
        checkout,
        '--profile',
        'fake',
        '--scenario',
        scenario,
        '--criteria',
        'types,collections',
        ...notes.flatMap((note) => ['--notes', note]),
      ],
      {
        env: { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: ledger },
      },
    );
    expect(run.exitCode).toBe(0);

    const pairs = await selectPairs(checkout, { notes, criteria: ['types', 'collections'] });
    expect(pairs.map((pair) => [pair.note, pair.criterion, pair.status])).toEqual(
      notes.flatMap((note) => [
        [note, 'kb/notes/COLLECTION.md', 'fresh'],
        [note, 'kb/types/note.md', 'fresh'],
      ]),
    );
    const collection = await readFile(join(checkout, pairs[0]!.resultPath), 'utf8');
    expect(collection).toMatch(/^criterion: kb\/notes\/COLLECTION\.md$/m);
    expect(collection).toMatch(/^outcome: warn$/m);
    // The gates were not asked: --criteria chose the other two kinds.
    expect((await selectPairs(checkout, { notes, criteria: ['gates'] })).every((pair) => pair.status === 'missing')).toBe(true);
    expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(4);
  });

  test("with bundle grouping a note's type and collection criteria are asked in its lens bundle, each written as its own result", async () => {
    const checkout = await corpusCopy();
    const [note] = await someNotes(1);
    const { scenario, ledger } = await fakeScenario(await scratch(), [{ attempts: [{ review: 'pass' }] }]);
    const run = await runCli(
      [
        'review',
        'run',
        'gates',
        '--kb',
        checkout,
        '--profile',
        'fake',
        '--scenario',
        scenario,
        '--gates',
        'frontmatter/*',
        '--criteria',
        KINDS.join(','),
        '--grouping',
        'bundle',
        '--notes',
        note!,
      ],
      {
        env: { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: ledger },
      },
    );
    expect(run.exitCode).toBe(0);
    const pairs = await selectPairs(checkout, { notes: [note!], gates: ['frontmatter/*'], criteria: [...KINDS] });
    expect(pairs.filter((pair) => pair.kind !== 'gate')).toHaveLength(2);
    expect(pairs.every((pair) => pair.status === 'fresh')).toBe(true);
    // One lens, so one launch: the type spec and the collection joined the frontmatter bundle.
    expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });
});
