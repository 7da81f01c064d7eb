import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { workflowBundlePath } from './helpers/temporal.js';
import { machinePathsIn } from './histories/scrub.js';

const dir = join(packageRoot(), 'test', 'histories');
const files = readdirSync(dir).filter((file) => file.endsWith('.json')).sort();
const ids = JSON.parse(readFileSync(join(dir, 'workflow-ids.map'), 'utf8')) as Record<string, string>;
const load = (file: string) => historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));

describe('recorded histories replay against the current workflow code', () => {
  test('there is a recorded history of each workflow: probe outcomes, gate sweeps and their batches, full passes, revisions, analyses', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'probe-completed.json',
        'probe-launch-failed.json',
        'probe-relaunched.json',
        'probe-timed-out.json',
        'probe-usage-limit.json',
        'gates-completed.json',
        'gates-completed-batch-1.json',
        'gates-bundle.json',
        'gates-bundle-batch-1.json',
        'gates-stopped-resumed.json',
        'gates-stopped-resumed-batch-1.json',
        'full-pass-no-edit.json',
        'full-pass-approved.json',
        'full-pass-guard-acknowledged.json',
        'revise-selection-approved.json',
        'analysis-completed.json',
        'analysis-out-of-scope.json',
        'analysis-rejected-once.json',
        'analysis-cascade.json',
        'analysis-recheck.json',
        'analysis-stopped-resumed.json',
        'analysis-budget-exhausted.json',
        'analysis-auto-resumed.json',
        'analysis-published.json',
        'analysis-publication-conflict.json',
        // Since the one lifecycle: exhausted closes, answer keys, cancellation, a failing probe.
        'analysis-exhausted.json',
        'analysis-unchanged-correction.json',
        'analysis-cancelled.json',
        'gates-exhausted.json',
        'gates-exhausted-batch-1.json',
        'full-pass-exhausted.json',
        'probe-failed.json',
        // Since the quota gates: the gate itself, and a sweep stopped on it and resumed by the operator.
        'quota-gate.json',
        'gates-quota-gate.json',
        'gates-quota-gate-batch-1.json',
        'gates-quota-gate-batch-1-r1.json',
        // Since spend caps: a sweep with --max-cost stopped at its cap and resumed with a raised one.
        'gates-spend-limit.json',
        'gates-spend-limit-batch-1.json',
        'gates-spend-limit-batch-1-r1.json',
      ]),
    );
  });

  test.each(files)('%s names no absolute path of the machine that recorded it', (file) => {
    expect(machinePathsIn(JSON.parse(readFileSync(join(dir, file), 'utf8')))).toEqual([]);
  });

  test.each(files)('%s replays without a determinism violation', async (file) => {
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath } }, load(file), ids[file])).resolves.toBeUndefined();
  });

  test('a workflow change that reorders commands fails the replay', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(packageRoot(), 'test', 'fixtures', 'replay', 'changed-workflows.ts'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
    });
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, load('probe-completed.json'), 'changed')).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
