// Records the analysis workflow's histories for test/replay.test.ts (called from test/histories/record.ts,
// or alone with `npx tsx test/analysis/record-histories.ts`): real runs on the fake harness.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { join } from 'node:path';
import type { FakeAttempt } from '../helpers/fake.js';
import { testWorker } from '../helpers/temporal.js';
import { mkdir, writeFile } from 'node:fs/promises';
import type { PreparedRun } from '../../src/activities/analysis/prepare.js';
import { analysisWorkflowId } from '../../src/runs/workflow-ids.js';
import { checkoutAt } from '../../src/checkout/index.js';
import { recordable, recordingState } from '../histories/recording.js';
import {
  analysisInput,
  git,
  member,
  prepareToy,
  progressUntil,
  startAnalysis,
  toyCheckout,
  toyProfiles,
  toyScenario,
  unchangedCorrection,
  writes,
  type Role,
} from './helpers.js';

export type Save = (env: TestWorkflowEnvironment, workflowId: string, name: string) => Promise<void>;
type Overrides = (clean: Record<Role, string>, runId: string) => Partial<Record<Role, FakeAttempt[]>>;

async function record(
  env: TestWorkflowEnvironment,
  save: Save,
  name: string,
  overrides: Overrides,
  drive: (handle: WorkflowHandle, prepared: PreparedRun) => Promise<void>,
  options: { autoResume?: boolean; searchAttributes?: boolean; beforeStart?: (prepared: PreparedRun) => Promise<void> } = {},
): Promise<void> {
  if (!recordable(name)) return;
  const checkout = await toyCheckout();
  const prepared = await prepareToy(checkout);
  await options.beforeStart?.(prepared);
  const { stateDir, fake } = await recordingState(name);
  const { env: fakeEnv } = await toyScenario(fake, prepared, (clean) => overrides(clean, prepared.runId));
  // The worker holds the checkout with the toy runs' worktrees root (prepareToy's, beside the checkout).
  const held = await checkoutAt(checkout, join(checkout, '..', 'worktrees'));
  const worker = await testWorker(env, { stateDir, checkouts: [held] });
  const input = worker.places.toPortable(analysisInput(prepared, await toyProfiles(fake), fakeEnv, options.autoResume ?? false));
  const workflowId = analysisWorkflowId(held.id, prepared.runId);
  await worker.runUntil(async () => drive(await startAnalysis(env, input, options.searchAttributes ?? true), prepared));
  await save(env, workflowId, name);
}

/** Starts the analysis workflow as the CLI does (its ID, summary, memo and search attributes), on an input written from place tokens. */

const finish = async (handle: WorkflowHandle) => {
  await handle.result();
};
const resumeOnce = async (handle: WorkflowHandle) => {
  await progressUntil(handle, (progress) => progress.status === 'stopped');
  await handle.executeUpdate('resume');
  await handle.result();
};

/** The runs recorded on the dev server. */
export async function recordAnalysisHistories(env: TestWorkflowEnvironment, save: Save): Promise<void> {
  await record(env, save, 'analysis-completed', () => ({}), finish);
  await record(
    env,
    save,
    'analysis-out-of-scope',
    (clean) => ({ boundary: [writes('boundary', clean.boundary.replace('disposition: published', 'disposition: out-of-scope'))] }),
    finish,
  );
  await record(
    env,
    save,
    'analysis-rejected-once',
    (clean) => ({ 'runtime-report': [writes('runtime-report', `${clean['runtime-report']}\nTODO\n`), writes('runtime-report', clean['runtime-report'])] }),
    finish,
  );
  await record(
    env,
    save,
    'analysis-cascade',
    (clean, run) => ({
      'report-verification': [
        writes('report-verification', member.verification(run, ['runtime-report: unsupported', 'lens-memory: unsupported'])),
        writes('report-verification', clean['report-verification']),
      ],
      'runtime-report': [writes('runtime-report', clean['runtime-report']), writes('runtime-report', clean['runtime-report'].replace('once', 'whole'))],
      'lens-memory': [writes('lens-memory', clean['lens-memory']), writes('lens-memory', clean['lens-memory'].replace('one pass', 'a single pass'))],
      reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
    }),
    finish,
  );
  await record(
    env,
    save,
    'analysis-recheck',
    (clean, run) => ({
      'lens-memory': [writes('lens-memory', member.lens(run, 'memory', { text: 'One pass (SRC-2).' }))],
      'lens-learning': [writes('lens-learning', member.lens(run, 'learning', { text: 'One pass (SRC-2).' }))],
      'report-verification': [
        writes('report-verification', member.verification(run, ['runtime-report: it is the main function'])),
        writes('report-verification', clean['report-verification']),
      ],
      'runtime-report': [writes('runtime-report', clean['runtime-report']), writes('runtime-report', member['runtime-report'](run, { record: 'RT-CMP-main' }))],
      'lens-control': [writes('lens-control', clean['lens-control']), writes('lens-control', member.lens(run, 'control', { cites: 'RT-CMP-main' }))],
      reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
    }),
    finish,
  );
  await record(
    env,
    save,
    'analysis-stopped-resumed',
    (clean) => ({ 'lens-memory': [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, writes('lens-memory', clean['lens-memory'])] }),
    resumeOnce,
  );
  // Publication (runs recorded before it was part of the workflow, above, replay without it).
  await record(env, save, 'analysis-published', () => ({}), finish);
  const destination = (prepared: PreparedRun) => `kb/analyses/toy/${prepared.runId}`;
  await record(
    env,
    save,
    'analysis-publication-conflict',
    () => ({}),
    async (handle, prepared) => {
      await progressUntil(handle, (progress) => progress.status === 'stopped');
      const checkout = prepared.parameters.checkout;
      await git(checkout, 'rm', '--quiet', '-r', destination(prepared));
      await git(checkout, 'commit', '--quiet', '-m', 'clear the destination');
      await handle.executeUpdate('resume');
      await handle.result();
    },
    {
      beforeStart: async (prepared) => {
        const checkout = prepared.parameters.checkout;
        await mkdir(join(checkout, destination(prepared)), { recursive: true });
        await writeFile(join(checkout, destination(prepared), 'boundary.md'), 'written on main\n');
        await git(checkout, 'add', '-A');
        await git(checkout, 'commit', '--quiet', '-m', 'a file in the destination');
      },
    },
  );
  // analysis-budget-exhausted.json was recorded by code in which a spent budget stopped the run for good; it is
  // kept as that code recorded it (runs begun then must replay). Since the lifecycle's exhausted close:
  await record(env, save, 'analysis-exhausted', (clean) => ({ synthesis: [writes('synthesis', clean.synthesis.replace('## Findings', '## Notes'))] }), finish);
  await record(env, save, 'analysis-unchanged-correction', unchangedCorrection, finish);
  await record(
    env,
    save,
    'analysis-cancelled',
    () => ({ 'runtime-report': [{ hang: true }] }),
    async (handle) => {
      await progressUntil(handle, (progress) => progress.inFlight.some((launch) => launch.role === 'runtime-report'));
      await handle.cancel();
      await handle.result().catch(() => undefined);
    },
  );
}

/** The run recorded on the time-skipping server: an auto-resume on its durable timer. */
export async function recordAnalysisTimerHistories(env: TestWorkflowEnvironment, save: Save): Promise<void> {
  const reset = Math.floor(Date.now() / 1000) + 3600;
  await record(
    env,
    save,
    'analysis-auto-resumed',
    (clean) => ({ 'memory-profile': [{ usageLimit: `Claude AI usage limit reached|${reset}` }, writes('memory-profile', clean['memory-profile'])] }),
    finish,
    { autoResume: true, searchAttributes: false },
  );
}
