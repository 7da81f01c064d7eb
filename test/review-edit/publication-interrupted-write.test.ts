import { execa } from 'execa';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EditSummary } from '../../src/review/edit/types.js';
import { checkoutsAt } from '../../src/worker.js';
import { runCli } from '../helpers/cli.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { startFaultWorker } from '../helpers/faults.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';
import { editedText, editorRule, gitCorpus, NOTE, noteText, publicationJournal, reviewsPass, runOf } from './helpers.js';
import { computedOnce } from '../helpers/once.js';

// The kill is real (a worker process of its own, SIGKILL, on the dev server); the file's runs are on a clock ten
// times quicker than the shipped one (test/helpers/scaled-clock.ts), so the dead worker's heartbeat timeout passes quickly.
const { env, address } = useDevServer({ quickerClock: 10 });

/** The hidden temporary files beside the note. */
async function tempFilesBesideNote(checkout: string): Promise<string[]> {
  return (await readdir(join(checkout, dirname(NOTE)))).filter((name) => /^\..*\.tmp$/.test(name));
}

// kill -9 of the worker inside the atomic write of a full pass's note: its temporary copy written, not renamed.
describe("a worker killed during a full pass's publication, between the note's temporary copy and its rename", () => {
  const results = computedOnce(async () => {
    const checkout = await gitCorpus();
    const start = await noteText(checkout);
    const { scenario } = await fakeScenario(await scratch(), [editorRule({ edited: editedText(start), decision: 'edit' }), { attempts: [reviewsPass] }]);
    const cli = (args: string[]) => runCli([...args, '--kb', checkout], { env: { TEMPORAL_ADDRESS: address() }, cwd: checkout });
    const doomed = startFaultWorker({ do: 'kill', at: 'temp-written', detail: NOTE }, { address: address(), state: await scratch(), kb: [checkout] });
    const stopped = await cli(['review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario]);
    const key = /key: ([0-9a-f]{16})/.exec(String(stopped.stdout))?.[1] ?? 'no key';
    const { runId, workflowId } = runOf('full-pass', NOTE, start, checkout);
    await cli(['review', 'approve', runId, 'artifact/publication.json', '--key', key, '--detach']);
    expect((await doomed).signal).toBe('SIGKILL');
    const leftBehind = await tempFilesBesideNote(checkout);
    const noteAfterKill = await noteText(checkout);
    const replacement = await testWorker(env(), { stateDir: await scratch(), checkouts: await checkoutsAt([checkout]) });
    const summary = (await replacement.runUntil(env().client.workflow.getHandle(workflowId).result())) as EditSummary;
    const journal = await publicationJournal(checkout, runId);
    return { checkout, leftBehind, noteAfterKill, summary, journal, start };
  });

  test("the killed worker left the note's temporary copy beside it, and the note unchanged", () => {
    const { leftBehind, noteAfterKill, start } = results();
    expect(leftBehind).toHaveLength(1);
    expect(noteAfterKill).toBe(start);
  });

  test('the run completes published once another worker takes over, the note holding the approved text', async () => {
    const { checkout, summary, start } = results();
    expect(summary.outcome).toBe('published');
    expect(await noteText(checkout)).toBe(editedText(start));
  });

  test('the retry removed the temporary copy: the checkout holds no temporary file, and Git sees only the note changed', async () => {
    const { checkout } = results();
    expect(await tempFilesBesideNote(checkout)).toEqual([]);
    const status = await execa('git', ['-C', checkout, 'status', '--porcelain=v1', '--untracked-files=all']);
    expect(status.stdout.split('\n').filter(Boolean)).toEqual([` M ${NOTE}`]);
  });

  test('each file is written once: the killed try put nothing in place, and the retry wrote every file and skipped none', () => {
    const { journal } = results();
    expect(journal.map((line) => line.event)).toEqual(['begin', 'note-writing', 'note-writing', 'done']);
    const done = journal.find((line) => line.event === 'done');
    expect(done?.written).toContain(NOTE);
    expect(done?.skipped).toBeUndefined();
  });
});
