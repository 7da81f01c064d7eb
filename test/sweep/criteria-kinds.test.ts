import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import { runCli } from '../helpers/cli.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep } from '../helpers/sweep.js';

const { address } = useDevServerWithCliWorker();

const KINDS = ['gates', 'types', 'collections'] as const;

describe('review run gates over type specs and COLLECTION.md files', () => {
  test('--criteria types,collections sweeps each note against its type spec and its collection, and writes their results', async () => {
    const sweep = await fakeSweep([{ attempts: [{ review: 'pass', outcomes: { 'kb/notes/COLLECTION.md': 'warn' } }] }], { notes: 2, gates: [] });
    const { checkout, notes } = sweep;
    const run = await runCli(sweep.command({}, '--criteria', 'types,collections'), { env: sweep.cliEnv(address()) });
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
    expect(await sweep.starts()).toHaveLength(4);
  });

  test("with bundle grouping a note's type and collection criteria are asked in its lens bundle, each written as its own result", async () => {
    const sweep = await fakeSweep([{ attempts: [{ review: 'pass' }] }]);
    const run = await runCli(sweep.command({ grouping: 'bundle' }, '--criteria', KINDS.join(',')), { env: sweep.cliEnv(address()) });
    expect(run.exitCode).toBe(0);
    const pairs = await selectPairs(sweep.checkout, { notes: sweep.notes, gates: sweep.gates, criteria: [...KINDS] });
    expect(pairs.filter((pair) => pair.kind !== 'gate')).toHaveLength(2);
    expect(pairs.every((pair) => pair.status === 'fresh')).toBe(true);
    // One lens, so one launch: the type spec and the collection joined the frontmatter bundle.
    expect(await sweep.starts()).toHaveLength(1);
  });
});
