// Records the editing workflows' histories for test/replay.test.ts: real runs on a real server,
// driven as the CLI drives them (start with search attributes, approve and acknowledge by Update).
// Called from test/histories/record.ts.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { join } from 'node:path';
import { approvalAnswer } from '../../src/client/review/decide/review-approve-run.js';
import type { EditKind, EditProgress, FullPassInput, ReviseInput } from '../../src/review/edit/types.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../../src/search-attributes.js';
import { checkoutAt, type HostPlaces } from '../../src/checkout/index.js';
import { fakeScenario, type FakeRule } from '../helpers/fake.js';
import { testWorker } from '../helpers/temporal.js';
import { recordable, recordingState } from '../histories/recording.js';
import { editedText, editorRule, gitCorpus, NOTE, noteText, reviewsPass, runOf, sha256 } from './helpers.js';

type Save = (env: TestWorkflowEnvironment, workflowId: string, name: string) => Promise<void>;

async function until(
  handle: { query: <T>(name: string) => Promise<T> },
  wanted: (progress: EditProgress) => boolean,
  ended: () => boolean,
): Promise<EditProgress | undefined> {
  while (!ended()) {
    const progress = await handle.query<EditProgress>('progress').catch(() => undefined);
    if (progress && wanted(progress)) return progress;
    await new Promise((done) => setTimeout(done, 200));
  }
  return undefined;
}

/**
 * Runs one editing workflow to its end, answering each stop with `answer`, and saves its history. The
 * run is started as the CLI starts it: its worker holds the checkout, the input names it `<checkout:ID>`
 * and the fake scenario from the worker's state directory (`<state>`); the answer reads the run's
 * files through the worker's places.
 */
async function recordEdit(
  env: TestWorkflowEnvironment,
  save: Save,
  name: string,
  kind: EditKind,
  rules: (checkout: string, start: string) => FakeRule[],
  extra: Partial<ReviseInput>,
  answer: (progress: EditProgress, places: HostPlaces) => Promise<{ update: 'approve' | 'acknowledge'; args: [unknown] }>,
): Promise<void> {
  if (!recordable(name)) return;
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const { stateDir, fake } = await recordingState(name);
  const { env: fakeEnv } = await fakeScenario(fake, rules(checkout, start));
  const { runId, workflowId } = runOf(kind, NOTE, start, checkout);
  const options =
    kind === 'full-pass' ? { profile: 'fake', direction: null } : { profile: 'fake', mode: 'plan' as const, planSha256: sha256(extra.planText ?? '') };
  const worker = await testWorker(env, { stateDir, checkouts: [await checkoutAt(checkout)] });
  const input = worker.places.toPortable({
    checkout,
    note: NOTE,
    noteSha256: sha256(start),
    runId,
    concurrency: 2,
    options,
    env: fakeEnv,
    ...extra,
  } as FullPassInput & ReviseInput);
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(kind === 'full-pass' ? 'fullPass' : 'revise', {
      taskQueue: TASK_QUEUE,
      workflowId,
      args: [input],
      memo: { runId, note: NOTE, checkout: input.checkout, options },
      typedSearchAttributes: [
        { key: CommonplaceKind, value: kind },
        { key: CommonplaceStatus, value: 'running' },
        { key: CommonplaceSubject, value: NOTE },
        { key: CommonplaceProfile, value: 'fake' },
      ],
    });
    const result = handle.result();
    let done = false;
    void result.then(() => (done = true));
    for (;;) {
      const progress = await until(
        handle,
        (now) => now.status !== 'running',
        () => done,
      );
      if (done || !progress || progress.status === 'completed') break;
      const { update, args } = await answer(progress, worker.places);
      await handle.executeUpdate(update, { args });
    }
    await result;
  });
  await save(env, workflowId, name);
}

/** Approves whatever proposal the run waits on (its run directory read where the worker holds it), editing a selection list first (its second line dropped). */
async function approve(progress: EditProgress, places: HostPlaces): Promise<{ update: 'approve'; args: [unknown] }> {
  const stop = progress.stops[0];
  if (stop?.kind !== 'awaiting-approval') throw new Error(`run ${progress.runId} is not awaiting approval`);
  const proposal = stop.proposal;
  const answer = await approvalAnswer(places.toHost(progress.runDir!), progress, proposal.path, proposal.key);
  if (!proposal.exact) answer.text = answer.text.replace(/^- \[s2\].*\n/m, '');
  return { update: 'approve', args: [answer] };
}

export async function recordEditHistories(env: TestWorkflowEnvironment, save: Save): Promise<void> {
  await recordEdit(
    env,
    save,
    'full-pass-no-edit',
    'full-pass',
    () => [editorRule({ edited: '', decision: 'no-edit' }), { attempts: [reviewsPass] }],
    {},
    approve,
  );
  await recordEdit(
    env,
    save,
    'full-pass-approved',
    'full-pass',
    (_checkout, start) => [
      editorRule({ edited: editedText(start), decision: 'edit' }),
      { match: '^criterion = prose/', attempts: [{ ...reviewsPass, malformed: ['prose/redundant-restatement'] }, reviewsPass] },
      { attempts: [reviewsPass] },
    ],
    {},
    approve,
  );
  await recordEdit(
    env,
    save,
    'full-pass-guard-acknowledged',
    'full-pass',
    (checkout) => [
      editorRule({
        outputs: { 'edited.md': '', 'decision.md': 'Nothing to change.\n\nDecision: no-edit\n' },
        writeOutside: { [join(checkout, 'kb/notes/stray.md')]: 'stray\n' },
      }),
      { attempts: [reviewsPass] },
    ],
    {},
    async (progress) => ({ update: 'acknowledge', args: [{ paths: progress.stops[0]?.kind === 'checkout-changed' ? progress.stops[0].paths : [] }] }),
  );
  await recordEdit(
    env,
    save,
    'revise-selection-approved',
    'revise',
    () => [
      {
        match: '^job = select$',
        attempts: [
          {
            outputs: {
              'selections.md':
                '- [s1] "carries too much philosophical weight" -> "means too many things" — plain\n- [s2] "deliberately minimal" -> "minimal on purpose" — plain\n',
            },
          },
        ],
      },
      { match: '^job = revise$', attempts: [{ outputs: { 'edited.md': '' } }] },
    ],
    { planText: 'passes: [tighten, plain-wording]\n' },
    approve,
  );
}

/** Since the lifecycle's exhausted close: a full pass whose editor never writes its outputs ends exhausted. */
export async function recordEditExhaustedHistory(env: TestWorkflowEnvironment, save: Save): Promise<void> {
  await recordEdit(
    env,
    save,
    'full-pass-exhausted',
    'full-pass',
    () => [{ match: '^job = edit$', attempts: [{ outputs: { 'notes.txt': 'no edit file\n' } }] }, { attempts: [reviewsPass] }],
    {},
    approve,
  );
}
