import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { workflowBundlePath } from './helpers/temporal.js';

const dir = join(packageRoot(), 'test', 'histories');
const files = readdirSync(dir).filter((file) => file.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(readFileSync(join(dir, file), 'utf8')));

describe('recorded histories replay against the current workflow code', () => {
  test('there is a recorded history of every outcome of the probe', () => {
    expect(files).toEqual(expect.arrayContaining(['probe-completed.json', 'probe-launch-failed.json', 'probe-relaunched.json', 'probe-timed-out.json', 'probe-usage-limit.json']));
  });

  test.each(files)('%s replays without a determinism violation', async (file) => {
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath } }, load(file), file)).resolves.toBeUndefined();
  });

  test('a workflow change that reorders commands fails the replay', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(packageRoot(), 'test', 'fixtures', 'replay', 'changed-workflows.ts'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
    });
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, load('probe-completed.json'), 'changed')).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
