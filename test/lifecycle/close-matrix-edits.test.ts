/**
 * The close matrix: every way each workflow kind can close, on a real dev server, and for each the
 * `CommonplaceStatus` search attribute read against the execution status Temporal reports. A
 * terminated workflow records nothing (Temporal runs none of its code), which is why the commands
 * that end runs cancel first; termination is not a row here.
 *
 * This file: full passes, revisions and probes; analyses, gate sweeps and their batches are
 * close-matrix-runs.test.ts (test/lifecycle/close-matrix.ts holds what both use).
 */
import { editRunId } from '../../src/review/edit/identity.js';
import { editWorkflowId } from '../../src/runs/workflow-ids.js';
import { checkoutId } from '../../src/checkout/index.js';
import type { FullPassInput, ReviseInput } from '../../src/review/edit/types.js';
import { CommonplaceStatus, TASK_QUEUE } from '../../src/search-attributes.js';
import { fullPass } from '../../src/workflows/full-pass.js';
import { probe } from '../../src/workflows/probe.js';
import { revise } from '../../src/workflows/revise.js';
import { scratch } from '../analysis/helpers.js';
import { fakeScenario, waitFor, type FakeRule } from '../helpers/fake.js';
import { expectNoHarnessLeft } from '../helpers/harness-processes.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { uniqueId } from '../helpers/temporal.js';
import { attributes, cancelWhenHanging, closed, useCloseMatrixServer } from './close-matrix.js';
import { editedText, editorRule, gitCorpus, NOTE, noteText, reviewsPass, sha256 } from '../review-edit/helpers.js';

const server = useCloseMatrixServer();
const env = () => server.env();

// Full passes and revisions.

async function startEditWith(kind: 'full-pass' | 'revise', rules: (start: string) => FakeRule[], extra: Partial<FullPassInput & ReviseInput> = {}) {
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, rules(start));
  const base = {
    checkout,
    note: NOTE,
    noteSha256: sha256(start),
    runId: editRunId(kind, NOTE, sha256(start), sha256(NOTE)),
    concurrency: 2,
    profilesFile: await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m', attempts: 2 } }),
    env: fakeEnv,
  };
  const options = {
    taskQueue: TASK_QUEUE,
    workflowId: editWorkflowId(kind, await checkoutId(checkout), NOTE, sha256(start)),
    typedSearchAttributes: attributes(kind),
  };
  const planText = 'passes:\n  - tighten\n';
  const handle =
    kind === 'full-pass'
      ? await env().client.workflow.start(fullPass, { ...options, args: [{ ...base, options: { profile: 'fake', direction: null }, ...extra }] })
      : await env().client.workflow.start(revise, {
          ...options,
          args: [{ ...base, options: { profile: 'fake', mode: 'plan', planSha256: sha256(planText) }, planText, ...extra }],
        });
  return { handle, ledger };
}

const noEdit = { match: '^job = edit$', attempts: [{ outputs: { 'edited.md': '', 'decision.md': 'Nothing to resolve.\n\nDecision: no-edit\n' } }] };

describe('a full pass closes with CommonplaceStatus true to its execution status', () => {
  test('no edit, published at once: COMPLETED and completed', async () => {
    const { handle } = await startEditWith('full-pass', () => [noEdit, { attempts: [reviewsPass] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('an editor that never writes its outputs: COMPLETED and exhausted', async () => {
    const { handle } = await startEditWith('full-pass', () => [
      { match: '^job = edit$', attempts: [{ outputs: { 'notes.txt': 'no edit file\n' } }] },
      { attempts: [reviewsPass] },
    ]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'exhausted']);
  });

  test('cancelled while awaiting approval: CANCELLED and cancelled', async () => {
    const { handle } = await startEditWith('full-pass', (start) => [editorRule({ edited: editedText(start), decision: 'edit' }), { attempts: [reviewsPass] }]);
    await waitFor(
      'the run awaiting approval',
      async () => (await handle.describe()).typedSearchAttributes.get(CommonplaceStatus) === 'awaiting-approval',
      120_000,
    );
    await handle.cancel();
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
  });

  test('a note that is not in the checkout: FAILED and failed', async () => {
    const { handle } = await startEditWith('full-pass', () => [noEdit, { attempts: [reviewsPass] }], { note: 'kb/notes/no-such-note.md' });
    expect(await closed(handle)).toEqual(['FAILED', 'failed']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startEditWith('full-pass', () => [{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});

describe('a revision closes with CommonplaceStatus true to its execution status', () => {
  test('a pass that changes nothing: COMPLETED and completed', async () => {
    const { handle } = await startEditWith('revise', (start) => [{ match: '^job = revise$', attempts: [{ outputs: { 'edited.md': start } }] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('a pass that never writes its output: COMPLETED and exhausted', async () => {
    const { handle } = await startEditWith('revise', () => [{ match: '^job = revise$', attempts: [{ outputs: { 'other.md': 'x\n' } }] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'exhausted']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startEditWith('revise', () => [{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});

// Probes.

async function startProbeWith(rules: FakeRule[]) {
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, rules);
  const id = uniqueId('probe');
  const handle = await env().client.workflow.start(probe, {
    taskQueue: TASK_QUEUE,
    workflowId: id,
    args: [probeInput(id.replace(/\//g, '-'), 'fake', await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } }), fakeEnv)],
    typedSearchAttributes: attributes('probe'),
  });
  return { handle, ledger };
}

describe('a probe closes with CommonplaceStatus true to its execution status', () => {
  test('a launch that completes: COMPLETED and completed', async () => {
    const { handle } = await startProbeWith([{ attempts: [{}] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('a launch that hits a usage limit: FAILED and failed', async () => {
    const { handle } = await startProbeWith([{ attempts: [{ usageLimit: 'Claude usage limit reached. Your limit will reset at 5pm.' }] }]);
    expect(await closed(handle)).toEqual(['FAILED', 'failed']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startProbeWith([{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});
