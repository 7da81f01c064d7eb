// What `commonplace worker` prints of an activity's expected failure: one line naming the activity, the run and why.
import { WorkflowFailedError } from '@temporalio/client';
import { startCli } from '../helpers/cli.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { uniqueId } from '../helpers/temporal.js';

const { env, address } = useDevServer();

test('an activity failing with an operator error (an unknown profile) and the run it fails are one line each in the worker log, without the SDK warning objects', async () => {
  const worker = startCli(['worker', '--state', await scratch()], { env: { TEMPORAL_ADDRESS: address() } });
  let said = '';
  worker.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  try {
    await waitFor('the worker to be ready', async () => said.includes('Ctrl-C stops it'), 90_000);
    const workflowId = uniqueId('probe/nosuch');
    // Started past the CLI's own check, as a workflow whose worker reads another profiles file would be.
    const run = env().client.workflow.execute('probe', { taskQueue: 'commonplace', workflowId, args: [{ probeId: workflowId, profile: 'nosuch' }] });
    await expect(run).rejects.toBeInstanceOf(WorkflowFailedError);
    await waitFor('the worker to log the failure', async () => said.includes('(bad-profile)'));
    await waitFor("the worker to log the run's failure", async () => said.includes(`workflow probe ${workflowId} failed`));
    const lines = said.split('\n').filter((line) => line.includes('nosuch'));
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^commonplace: activity prepareProbe of ${workflowId} failed \\(bad-profile\\): unknown worker profile "nosuch"`)),
      expect.stringMatching(new RegExp(`^commonplace: workflow probe ${workflowId} failed: unknown worker profile "nosuch"`)),
    ]);
    expect(said).not.toMatch(/taskToken|Activity failed|\{$/m);
  } finally {
    worker.kill('SIGINT');
    await worker;
  }
}, 120_000);
