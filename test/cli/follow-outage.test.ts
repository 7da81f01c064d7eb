/**
 * A follow whose server is gone for good gives up: a dead server's calls fail as unavailable and as
 * deadline-exceeded in turn, and the whole run of them counts as one outage (COMMONPLACE_UNREACHABLE_SECONDS
 * shortens the 60 s; it is longer than a progress query's 10 s deadline, so a clock that each timeout
 * restarted would never run out).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startCli } from '../helpers/cli.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { watchedProcess } from '../helpers/hosts.js';
import { gatesCommand } from '../helpers/sweep.js';
import { startDevEnvironment } from '../helpers/temporal.js';

let env: TestWorkflowEnvironment | undefined;
const LIMIT_S = 15;
const SLACK_S = 6;
afterAll(async () => {
  await env?.teardown().catch(() => undefined);
});

test('a sweep followed while its server is killed for good exits 1 at the limit its message names, saying the server was lost and the run goes on', async () => {
  env = await startDevEnvironment();
  const address = env.connection.options.address;
  const checkout = await corpusCopy();
  // No worker: the sweep starts and waits, and the CLI follows it, querying its progress.
  const command = gatesCommand({ kb: checkout, gates: 'frontmatter/*', notes: await someNotes(1) });
  const sweep = watchedProcess(startCli(command, { env: { TEMPORAL_ADDRESS: address, COMMONPLACE_UNREACHABLE_SECONDS: String(LIMIT_S) } }), 'the CLI');
  await sweep.said(/started gates\//, 60_000);
  await env.teardown();
  const killedAt = Date.now();
  env = undefined;
  const ended = await sweep.process;
  // The clock runs from the last time the server answered, which is before it was killed: the CLI is
  // gone by the limit after the kill, with a few seconds for a busy machine (not the retries' 20 s and more).
  expect((Date.now() - killedAt) / 1000).toBeLessThan(LIMIT_S + SLACK_S);
  expect(ended.exitCode).toBe(1);
  expect(sweep.stderr()).toContain('the Temporal server is not answering; still following gates/');
  expect(sweep.stderr().trimEnd().split('\n').at(-1)).toMatch(
    new RegExp(
      `^commonplace: lost the Temporal server for ${LIMIT_S} s while following gates/GS-\\S+; the run goes on on the server — follow it again with the same command$`,
    ),
  );
}, 120_000);
