import type { EditSummary } from '../../src/review/edit/types.js';
import { selectPairs } from '../../src/review/status.js';
import { runCli } from '../helpers/cli.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { startFaultWorker } from '../helpers/faults.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';
import { checkoutsAt } from '../../src/worker.js';
import { editedText, editorRule, gitCorpus, NOTE, noteText, publicationJournal, reviewsPass, runOf, type JournalLine } from './helpers.js';

// The kill is real (a worker process of its own, SIGKILL, on the dev server); only the waits it brings shrink: the
// file's runs are on a clock ten times quicker than the shipped one (test/helpers/scaled-clock.ts), so the dead
// worker's heartbeat timeout and the retry after it pass quickly. test/harness/relaunch.test.ts proves the shipped
// numbers on the time-skipping server.
const { env, address } = useDevServer({ quickerClock: 10 });

// kill -9 of the worker during a full pass's publication: a worker process with the fault that kills
// it right after the note is written, before the packet and the results (test/helpers/faults.ts).
describe("a worker killed during a full pass's publication, right after the note is written", () => {
  let summary: EditSummary;
  let journal: JournalLine[];
  let start: string;
  let final: string;
  let freshAfter: boolean;
  beforeAll(async () => {
    const checkout = await gitCorpus();
    start = await noteText(checkout);
    const { scenario } = await fakeScenario(await scratch(), [editorRule({ edited: editedText(start), decision: 'edit' }), { attempts: [reviewsPass] }]);
    const cli = (args: string[]) => runCli([...args, '--kb', checkout], { env: { TEMPORAL_ADDRESS: address() }, cwd: checkout });
    const doomed = startFaultWorker({ do: 'kill', at: 'note-written' }, { address: address(), state: await scratch(), kb: [checkout] });
    const stopped = await cli(['review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario]);
    const key = /key: ([0-9a-f]{16})/.exec(String(stopped.stdout))?.[1] ?? 'no key';
    const { runId, workflowId } = runOf('full-pass', NOTE, start, checkout);
    await cli(['review', 'approve', runId, 'artifact/publication.json', '--key', key, '--detach']);
    expect((await doomed).signal).toBe('SIGKILL'); // it kills itself after the note
    const replacement = await testWorker(env(), { stateDir: await scratch(), checkouts: await checkoutsAt([checkout]) });
    summary = (await replacement.runUntil(env().client.workflow.getHandle(workflowId).result())) as EditSummary;
    journal = await publicationJournal(checkout, runId);
    final = await noteText(checkout);
    freshAfter = (await selectPairs(checkout, { notes: [NOTE], criteria: ['gates'] })).every((pair) => pair.status === 'fresh');
  });

  test('the run completes published once another worker takes over', () => {
    expect(summary.outcome).toBe('published');
  });

  test('the note holds the approved text, written once: the retry found it written and skipped it', () => {
    expect(final).toBe(editedText(start));
    expect(journal.filter((line) => line.event === 'note-writing')).toHaveLength(1);
    expect(journal.find((line) => line.event === 'done')?.skipped).toContain(NOTE);
  });

  test('the packet and the results the killed try had not written are written by the retry, and describe the note', () => {
    expect(journal.filter((line) => line.event === 'begin')).toHaveLength(1);
    expect(freshAfter).toBe(true);
  });
});
