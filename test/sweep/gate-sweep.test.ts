import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findOrphans, selectPairs } from '../../src/review/status.js';
import type { SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { waitFor } from '../helpers/fake.js';
import { someNotes } from '../helpers/kb.js';
import { useDevServer } from '../helpers/servers.js';
import { executeSweep, fakeSweep, heldFramingMismatch, startSweep, type FakeSweep } from '../helpers/sweep.js';
import { computedOnce } from '../helpers/once.js';

const { env } = useDevServer();

const gates = ['frontmatter/*', 'sentence/framing-mismatch'];

/** A sweep of the notes, four units at a time in batches of five, under `fake` or `fake-again` (the same harness). */
async function sweepSetup(rules: Parameters<typeof fakeSweep>[0], notes: string[]) {
  const fake = { harness: 'fake', timeout: '1m', attempts: 3 };
  const setup = await fakeSweep(rules, { notes, gates, profiles: { fake, 'fake-again': fake } });
  const input = (extra: Partial<SweepInput> = {}) => setup.input({ concurrency: 4, batchSize: 5, ...extra });
  return { ...setup, input, worker: () => setup.worker(env()) };
}

async function sweep(setup: Awaited<ReturnType<typeof sweepSetup>>, extra: Partial<SweepInput> = {}): Promise<SweepSummary> {
  return (await setup.worker()).runUntil(executeSweep(env(), setup.input(extra)));
}

const stale = async (setup: FakeSweep) => (await setup.pairs()).filter((pair) => pair.status !== 'fresh');

describe('the gate sweep', () => {
  describe('sweeps of three notes, with edits and a deletion between them', () => {
    const key = (pair: { note: string; criterion: string }) => `${pair.note} ${pair.criterion}`;
    const results = computedOnce(async () => {
      const notes = await someNotes(3);
      const setup = await sweepSetup([{ attempts: [{ review: 'pass' }] }], notes);
      const applicable = await setup.pairs();

      const first = await sweep(setup);
      const startsAfterFirst = (await setup.starts()).length;
      const staleAfterFirst = await stale(setup);
      const result = await readFile(join(setup.checkout, applicable[0]!.resultPath), 'utf8');

      const second = await sweep(setup);
      const startsAfterSecond = (await setup.starts()).length;

      // One word of one note's body.
      const edited = notes[1]!;
      const text = await readFile(join(setup.checkout, edited), 'utf8');
      await writeFile(join(setup.checkout, edited), `${text.trimEnd()} indeed\n`); // the last line is body text
      const afterNoteEdit = await stale(setup);
      const third = await sweep(setup);

      const gateFile = join(setup.checkout, 'kb/instructions/review-gates/sentence/framing-mismatch.md');
      await writeFile(gateFile, `${await readFile(gateFile, 'utf8')}\nOne more sentence of test.\n`);
      const afterGateEdit = await stale(setup);
      await sweep(setup);
      const staleAfterFourth = await stale(setup);

      await rm(join(setup.checkout, notes[0]!));
      const orphans = await findOrphans(setup.checkout, { criteria: ['gates'] });
      return {
        notes,
        edited,
        applicable,
        first,
        startsAfterFirst,
        staleAfterFirst,
        result,
        second,
        startsAfterSecond,
        afterNoteEdit,
        third,
        afterGateEdit,
        staleAfterFourth,
        orphans,
      };
    });

    test('before any sweep, every applicable pair is missing', () => {
      const { applicable } = results();
      expect(applicable.length).toBeGreaterThan(6);
      expect(applicable.every((pair) => pair.status === 'missing')).toBe(true);
    });

    test('the first sweep asks each applicable pair once and writes its result, leaving none stale', () => {
      const { applicable, first, startsAfterFirst, staleAfterFirst } = results();
      expect(first.pairs).toBe(applicable.length);
      expect(first.counts.written.pass).toBe(applicable.length);
      expect(first.counts.problems).toBe(0);
      expect(startsAfterFirst).toBe(applicable.length);
      expect(staleAfterFirst).toEqual([]);
    });

    test('a result file names its note in its frontmatter and ends in its result line', () => {
      const { result } = results();
      expect(result).toMatch(/^---\nnote: kb\/notes\//);
      expect(result).toMatch(/\nResult: pass\n$/);
    });

    test('a second sweep with nothing changed asks nothing', () => {
      const { applicable, second, startsAfterSecond } = results();
      expect(second.pairs).toBe(0);
      expect(startsAfterSecond).toBe(applicable.length);
    });

    test("a body edit of one note stales exactly that note's body-watching pairs, as note changed", () => {
      const { edited, applicable, afterNoteEdit } = results();
      const bodyWatching = applicable.filter((pair) => pair.note === edited && pair.watches.includes('body'));
      expect(afterNoteEdit.map(key).sort()).toEqual(bodyWatching.map(key).sort());
      expect(afterNoteEdit.every((pair) => pair.staleBecause === 'note')).toBe(true);
    });

    test('the sweep after the note edit asks exactly the stale pairs', () => {
      const { afterNoteEdit, third } = results();
      expect(third.pairs).toBe(afterNoteEdit.length);
    });

    test("a gate edit stales exactly that gate's pairs, as criterion changed, and the next sweep freshens them", () => {
      const { notes, afterGateEdit, staleAfterFourth } = results();
      expect(afterGateEdit.map((pair) => pair.criterion)).toEqual(notes.map(() => 'sentence/framing-mismatch'));
      expect(afterGateEdit.every((pair) => pair.staleBecause === 'criterion')).toBe(true);
      expect(staleAfterFourth).toEqual([]);
    });

    test('a deleted note orphans exactly its results, as note gone', () => {
      const { notes, applicable, orphans } = results();
      expect(orphans.map((orphan) => `${orphan.note} ${orphan.criterion} ${orphan.reason}`).sort()).toEqual(
        applicable
          .filter((pair) => pair.note === notes[0])
          .map((pair) => `${key(pair)} note-gone`)
          .sort(),
      );
    });
  });

  test('a note edited while its pair is in flight stops the sweep for acknowledgement; once owned, the pair is asked again over the edited note', async () => {
    const notes = await someNotes(1);
    // The pair's first launch is held open until the note has been edited: the edit lands in flight, however slow the machine.
    const setup = await sweepSetup(heldFramingMismatch, notes);
    const { stopped, summary } = await (
      await setup.worker()
    ).runUntil(async () => {
      const handle = await startSweep(env(), setup.input());
      await waitFor('the slow pair to start', async () => (await setup.starts()).some((entry) => entry.rule === 0));
      const text = await readFile(join(setup.checkout, notes[0]!), 'utf8');
      await writeFile(join(setup.checkout, notes[0]!), `${text}\nAn edit made while the pair was in flight.\n`);
      await setup.releaseLaunch();
      let progress: SweepProgress | undefined;
      await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 120_000);
      const stop = progress!.stops[0]!;
      await handle.executeUpdate('acknowledge', { args: [{ paths: stop.kind === 'checkout-changed' ? stop.paths : [] }] });
      return { stopped: progress!, summary: (await handle.result()) as SweepSummary };
    });
    expect(stopped.stops[0]).toMatchObject({ kind: 'checkout-changed', paths: [notes[0]] });
    expect(summary.status).toBe('completed');
    const pairs = await setup.pairs();
    expect(pairs.find((pair) => pair.criterion === 'sentence/framing-mismatch')?.status).toBe('fresh');
  });

  test('an output without a valid result line is re-asked with the findings and accepted on the next try', async () => {
    const notes = await someNotes(1);
    const setup = await sweepSetup(
      [
        { match: 'criterion = sentence/framing-mismatch', attempts: [{ review: 'pass', malformed: ['sentence/framing-mismatch'] }, { review: 'warn' }] },
        { attempts: [{ review: 'pass' }] },
      ],
      notes,
    );
    const summary = await sweep(setup, { gates: ['sentence/framing-mismatch'] });
    expect(summary.counts.written.warn).toBe(1);
    expect(summary.counts.problems).toBe(0);
    expect(summary.counts.launches).toBe(2);
    const launches = (await setup.starts()).filter((entry) => entry.rule === 0);
    expect(launches).toHaveLength(2);
    const reask = await readFile(join(launches[1]!.cwd!, 'prompt.md'), 'utf8');
    expect(reask).toMatch(/refused by the check/);
    expect(reask).toMatch(/sentence\/framing-mismatch: .*Verdict: warn|sentence\/framing-mismatch: .*result line/);
  });

  test('a bundle missing one gate re-asks only that gate', async () => {
    const notes = await someNotes(1);
    const setup = await sweepSetup([{ attempts: [{ review: 'pass', skip: ['frontmatter/description-discrimination'] }, { review: 'fail' }] }], notes);
    const pairs = await selectPairs(setup.checkout, { notes, gates: ['frontmatter/*'], criteria: ['gates'] });
    expect(pairs.length).toBeGreaterThan(1);
    const summary = await sweep(setup, { gates: ['frontmatter/*'], grouping: 'bundle' });
    expect(summary.counts.launches).toBe(2);
    expect(summary.counts.written.pass).toBe(pairs.length - 1);
    expect(summary.counts.written.fail).toBe(1);
    const launches = await setup.starts();
    const second = await readFile(join(launches[1]!.cwd!, 'prompt.md'), 'utf8');
    expect(second.match(/^criterion = /gm)).toHaveLength(1);
    expect(second).toContain('criterion = frontmatter/description-discrimination');
  });

  test('a pair whose outputs keep failing the check becomes a problem after the budget, the sweep goes on; a retry judges its paid answers again, and asks only under another profile', async () => {
    const notes = await someNotes(1);
    const bad = { review: 'pass' as const, malformed: ['sentence/framing-mismatch'] };
    const setup = await sweepSetup(
      // The third attempt would be handed exactly what the second was: it is answered by the second, not launched.
      [{ match: 'criterion = sentence/framing-mismatch', attempts: [bad, bad, { review: 'fail' }] }, { attempts: [{ review: 'pass' }] }],
      notes,
    );
    const pairs = await setup.pairs();
    const summary = await sweep(setup);
    expect(summary.counts.problems).toBe(1);
    expect(summary.problems).toEqual([
      expect.objectContaining({
        note: notes[0],
        criterion: 'sentence/framing-mismatch',
        reason: expect.stringMatching(/attempt budget \(3\) spent/),
        findings: [expect.objectContaining({ file: 'review.md', rule: 'result-line', criterion: 'sentence/framing-mismatch', severity: 'fail' })],
      }),
    ]);
    expect(summary.counts.written.pass).toBe(pairs.length - 1);
    expect((await setup.starts()).filter((entry) => entry.rule === 0)).toHaveLength(2);

    // The same asks under the same profile: the run's answers are judged again, nothing is launched, the pair stays a problem.
    const retry = await sweep(setup, { retryOf: summary.runId });
    expect(retry.pairs).toBe(1);
    expect(retry.counts.problems).toBe(1);
    expect(retry.counts.launches).toBe(0);
    expect(await setup.starts()).toHaveLength(pairs.length - 1 + 2);
    // Another profile is another ask: it is launched.
    const elsewhere = await sweep(setup, { retryOf: retry.runId, profile: 'fake-again' });
    expect(elsewhere.counts.written.fail).toBe(1);
    expect(await setup.starts()).toHaveLength(pairs.length - 1 + 2 + 1);
    expect(await stale(setup)).toEqual([]);
  });

  test('a usage limit mid-sweep stops it; resume completes it without asking an accepted pair again', async () => {
    const notes = await someNotes(2);
    const setup = await sweepSetup(
      [
        {
          match: `note = ${notes[1]}\\n(.|\\n)*criterion = sentence/framing-mismatch`,
          attempts: [{ usageLimit: "You've hit your limit · resets 3am (UTC)" }, { review: 'pass' }],
        },
        { attempts: [{ review: 'pass' }] },
      ],
      notes,
    );
    const pairs = await setup.pairs();
    await (
      await setup.worker()
    ).runUntil(async () => {
      const handle = await startSweep(env(), setup.input({ concurrency: 1 }));
      let progress: SweepProgress | undefined;
      await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 60_000);
      expect(progress!.stops[0]).toMatchObject({ kind: 'usage-limit', disposition: 'retry', resetAt: expect.stringMatching(/T03:00:00\.000Z$/) });
      const writtenAtStop = (await setup.pairs()).filter((pair) => pair.status === 'fresh').length;
      expect(writtenAtStop).toBeGreaterThan(0);
      expect(writtenAtStop).toBeLessThan(pairs.length);
      await handle.executeUpdate('resume');
      const summary = (await handle.result()) as SweepSummary;
      expect(summary.counts.pairsDone).toBe(pairs.length);
    });
    expect(await stale(setup)).toEqual([]);
    // Every pair was asked once, except the one whose first launch hit the limit.
    const asked = (await setup.starts()).length;
    expect(asked).toBe(pairs.length + 1);
  });
});
