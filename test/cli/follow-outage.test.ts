/**
 * A follow whose server is gone for good gives up: a dead server's calls fail as unavailable and as
 * deadline-exceeded in turn, and the whole run of them counts as one outage (COMMONPLACE_UNREACHABLE_SECONDS
 * shortens the 60 s; it is longer than a progress query's 10 s deadline, so a clock that each timeout
 * restarted would never run out).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { startDevEnvironment } from '../helpers/temporal.js';

let env: TestWorkflowEnvironment | undefined;
afterAll(async () => {
  await env?.teardown().catch(() => undefined);
});

test('a sweep followed while its server is killed for good exits 1 saying the server was lost and the run goes on', async () => {
  env = await startDevEnvironment();
  const address = env.connection.options.address;
  const checkout = await corpusCopy();
  const [note] = await someNotes(1);
  // No worker: the sweep starts and waits, and the CLI follows it, querying its progress.
  const sweep = startCli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--gates', 'frontmatter/*', '--notes', note!], {
    env: { TEMPORAL_ADDRESS: address, COMMONPLACE_UNREACHABLE_SECONDS: '15' },
  });
  let said = '';
  sweep.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  await waitFor('the sweep to start and be followed', async () => said.includes('started gates/'), 60_000);
  await env.teardown();
  env = undefined;
  const ended = await sweep;
  expect(ended.exitCode).toBe(1);
  expect(said).toContain('the Temporal server is not answering; still following gates/');
  expect(said.trimEnd().split('\n').at(-1)).toMatch(
    /^commonplace: lost the Temporal server for 15 s while following gates\/GS-\S+; the run goes on on the server — follow it again with the same command$/,
  );
}, 120_000);
