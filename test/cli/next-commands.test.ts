/**
 * Every command the CLI prints for the operator to type next runs as printed: each test takes the line
 * a command printed and runs it in a shell, as an operator pastes it, with no TEMPORAL_* variable in
 * that shell (the line alone must name the server) and from a directory outside the checkout (the line
 * alone must name the checkout), then checks that it did what the message said. The Web UI's commands
 * too: pasted where `commonplace` is the linked name (`npm link`), they run from any directory.
 */
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ADDRESS_MEMO } from '../../src/runs/run-commands.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { fakeScenario, ledgerStarts, scratch, waitFor } from '../helpers/fake.js';
import { checkoutIdOf, corpusCopy, someNotes } from '../helpers/kb.js';
import { toyCheckout, toyPrepareArgs } from '../analysis/helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { createNamespace } from '../helpers/temporal.js';
import { fakeSweep, gatesCommand, sweepRunOf } from '../helpers/sweep.js';
import { paste, printed, printingEnv as printingEnvOf } from '../helpers/paste.js';
import { freePort } from '../helpers/ports.js';

const { env, address } = useDevServerWithCliWorker();

const printingEnv = () => printingEnvOf(address());

test('a spend-limit stop\'s "continue with a higher cap" line runs as printed: its cap covers the launch that was in flight at the stop, and the resume is accepted', async () => {
  // The first launch waits for the test; the others answer at once, at $0.10 each.
  const paid = { review: 'pass' as const, costUsd: 0.1 };
  const setup = await fakeSweep(({ release }) => [{ attempts: [{ ...paid, waitForFile: release }, paid] }], { notes: 2 });
  const { checkout, starts } = setup;
  expect((await setup.pairs()).length).toBeGreaterThan(3);
  const elsewhere = await scratch();
  const sweep = runCli(setup.command({ concurrency: 2 }, '--max-cost', '0.25'), { cwd: elsewhere, env: printingEnv() });
  // The second launch ends ($0.10 spent, one in flight): the third unit is refused by the cap ($0.10 + 2 × $0.10 > $0.25) while the first still runs.
  let batch = '';
  await waitFor(
    'the cap to refuse the third unit while the first launch is in flight',
    async () => {
      batch ||= (await sweepBatch(checkoutIdOf(checkout))) ?? '';
      return batch !== '' && (await refusedWhileInFlight(batch));
    },
    120_000,
  );
  await setup.releaseLaunch();
  const stopped = await sweep;
  expect(stopped.exitCode).toBe(2);
  // The stop's figures are the spend once the launch in flight at the stop settled: $0.20, not the $0.10 it saw.
  expect(stopped.stdout).toMatch(/spent \$0\.2000 of the \$0\.2500 cap/);
  expect(await starts()).toHaveLength(2);

  // The line asks for room above the settled $0.20, not above the $0.10 the stop saw.
  const line = printed(stopped.stdout, 'to spend more, continue with a higher cap');
  expect(line).toMatch(
    new RegExp(`review run gates --resume GS-\\S+ --max-cost 0\\.3 --kb ${checkout} --address ${address()} --namespace ${env().namespace}$`),
  );
  const resumed = await paste(line, elsewhere);
  expect(resumed.stderr).toMatch(/^resuming gates\/GS-\S+ \(stopped: spend-limit\)$/m);
  expect(resumed.stderr).not.toMatch(/not resumed|commonplace: /);
  // The new cap leaves room for one more launch at the mean cost: the sweep makes it and stops at the new cap.
  expect(await starts()).toHaveLength(3);
  expect(resumed.exitCode).toBe(2);
  expect(resumed.stdout).toMatch(/stopped: spend-limit \(operator\)/);
});

test("the Web UI's `next:` command of a stopped sweep runs as pasted from another directory, where `commonplace` is the linked name and no TEMPORAL_* variable is set: it resumes the sweep", async () => {
  const setup = await fakeSweep([{ attempts: [{ review: 'pass', costUsd: 0.1 }] }], { notes: 2 });
  const { checkout } = setup;
  const elsewhere = await scratch();
  const stopped = await runCli(setup.command({ concurrency: 1 }, '--max-cost', '0.15'), { cwd: elsewhere, env: printingEnv() });
  expect(stopped.exitCode).toBe(2);
  expect(stopped.stdout).toMatch(/stopped: spend-limit/);
  const runId = sweepRunOf(stopped);
  const before = (await setup.starts()).length;

  // The sweep's current details, as the Web UI reads them.
  const handle = env().client.workflow.getHandle(`gates/${runId}`);
  const details = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';
  const next = /^next: `(.+)`$/m.exec(details)?.[1];
  expect(next).toBe(
    `commonplace review run gates --resume ${runId} --max-cost ${/--max-cost (\S+)/.exec(next ?? '')?.[1]} --kb ${checkoutIdOf(checkout)} --address ${address()} --namespace ${env().namespace}`,
  );
  expect(details).not.toContain(checkout);
  // The sweep's batch carries the address its starter named too (the workflow interceptors), for its own commands.
  expect((await env().client.workflow.getHandle(`gates/${runId}/batch-1`).describe()).memo).toMatchObject({ [ADDRESS_MEMO]: address() });

  // The operator's shell: `commonplace` on PATH as `npm link` puts it, a symbolic link to bin/commonplace.js.
  const linked = join(await scratch(), 'bin');
  await mkdir(linked);
  await symlink(cliPath, join(linked, 'commonplace'));
  const resumed = await paste(next!, elsewhere, { PATH: `${linked}:${process.env.PATH ?? ''}` });
  expect(resumed.stderr).not.toMatch(/commonplace: /);
  expect(resumed.stderr).toMatch(new RegExp(`^resuming gates/${runId} \\(stopped: spend-limit\\)$`, 'm'));
  expect((await setup.starts()).length).toBeGreaterThan(before);
  expect([0, 2]).toContain(resumed.exitCode);
});

/** The batch workflow of the checkout's one sweep, once it has started. */
async function sweepBatch(checkoutId: string): Promise<string | undefined> {
  for await (const execution of env().client.workflow.list({ query: `CommonplaceKind = "gates" AND WorkflowId STARTS_WITH "gates/GS-${checkoutId}-"` })) {
    return `${execution.workflowId}/batch-1`;
  }
  return undefined;
}

/** Whether the batch captured its third unit and then decided without launching it: two launches scheduled, a workflow task completed after the third capture. */
async function refusedWhileInFlight(batch: string): Promise<boolean> {
  const history = await env()
    .client.workflow.getHandle(batch)
    .fetchHistory()
    .catch(() => undefined);
  const events = history?.events ?? [];
  const typeOf = new Map(
    events
      .filter((event) => event.activityTaskScheduledEventAttributes)
      .map((event) => [String(event.eventId), event.activityTaskScheduledEventAttributes!.activityType?.name]),
  );
  const launches = [...typeOf.values()].filter((type) => type === 'launch').length;
  const captures = events.flatMap((event, index) =>
    typeOf.get(String(event.activityTaskCompletedEventAttributes?.scheduledEventId)) === 'captureUnit' ? [index] : [],
  );
  const third = captures[2];
  return launches === 2 && third !== undefined && events.slice(third + 1).some((event) => event.workflowTaskCompletedEventAttributes);
}

test('the hints of a started sweep run as printed: `temporal workflow describe` describes it, and the worker the no-worker hint starts holds the checkout and finishes the sweep', async () => {
  // A checkout the file's worker does not hold: no worker polls its task queue.
  const list = process.env.COMMONPLACE_KB_LIST;
  delete process.env.COMMONPLACE_KB_LIST;
  const checkout = await corpusCopy().finally(() => {
    process.env.COMMONPLACE_KB_LIST = list;
  });
  const elsewhere = await scratch();
  const { scenario, ledger } = await fakeScenario(await scratch(), [{ attempts: [{ review: 'pass' }] }]);
  const command = gatesCommand({ kb: checkout, scenario, gates: 'frontmatter/*', notes: await someNotes(1) }, '--detach');
  const started = await runCli(command, { cwd: elsewhere, env: printingEnv() });
  expect(started.exitCode).toBe(0);
  const runId = /started gates\/(GS-\S+);/.exec(String(started.stderr))?.[1];
  expect(runId).toBeDefined();

  const describe = /watch it at the Web UI or with: (.+)$/m.exec(String(started.stderr))?.[1];
  expect(describe).toBeDefined();
  const described = await paste(describe!, elsewhere);
  expect(described.stderr).toBe('');
  expect(described.exitCode).toBe(0);
  expect(described.stdout).toContain(`gates/${runId}`);

  const workerLine = /no worker holds this checkout yet .* — `(.+)`$/m.exec(String(started.stderr))?.[1];
  expect(workerLine).toBeDefined();
  const worker = paste(`${workerLine!} --state ${await scratch()}`, elsewhere);
  try {
    const summary = await env().client.workflow.getHandle(`gates/${runId!}`).result();
    expect(summary).toMatchObject({ status: 'completed' });
    expect((await ledgerStarts(ledger)).length).toBeGreaterThan(0);
  } finally {
    worker.kill('SIGINT');
    await worker;
  }
});

test("prepare's `next:` line runs as printed from any directory: it starts and follows the prepared run on the checkout prepare was given, and the next line it prints runs too", async () => {
  const checkout = await toyCheckout();
  const elsewhere = await scratch();
  const prepared = await runCli(toyPrepareArgs(checkout, 'toy-next'), {
    cwd: elsewhere,
    env: printingEnv(),
  });
  expect(prepared.exitCode).toBe(0);
  const runId = /^prepared (\S+)$/m.exec(String(prepared.stdout))?.[1];
  const line = printed(prepared.stdout, 'next');
  expect(line).toContain(`analysis run ${runId!} --kb ${checkout} --address ${address()}`);

  // The file's worker has no scenario for this run: the fake harness writes no member, and the run ends on its budget (exit 2) with one next step.
  const run = await paste(line, elsewhere);
  expect(run.stderr).not.toMatch(/commonplace: /);
  expect(run.exitCode).toBe(2);
  expect(run.stdout).toContain(runId!);
  const workflowId = `analysis/${checkoutIdOf(checkout)}/${runId!}`;
  await expect(env().client.workflow.getHandle(workflowId).describe()).resolves.toMatchObject({ workflowId });

  // The next step carries a note after it, as a shell comment: the whole line pastes.
  const reset = printed(run.stdout, 'next');
  expect(reset).toMatch(/ {3}# it says what it discards/);
  expect(reset).toContain(`analysis reset ${runId!}`);
  const discarded = await paste(reset, elsewhere);
  expect(discarded.stderr).not.toMatch(/commonplace: /);
  // Without --yes, reset says what it would discard and prints the command that does (exit 1); that command discards it.
  expect(discarded.exitCode).toBe(1);
  const confirmed = await paste(/run again with --yes to discard it: (.+)$/m.exec(String(discarded.stdout))![1]!, elsewhere);
  expect(confirmed.stderr).not.toMatch(/commonplace: /);
  expect(confirmed.exitCode).toBe(0);
  expect(confirmed.stdout).toMatch(new RegExp(`^reset ${runId!}: discarded`, 'm'));
});

test('the unreachable-server hint runs as printed: pasted, it starts a dev server on the port the command could not reach', async () => {
  let port = 0;
  // A free port whose Web UI port (1,000 above, as the hint moves it) is free too.
  for (;;) {
    port = await freePort();
    if (port + 1000 <= 65535 && (await portFree(port + 1000))) break;
  }
  const elsewhere = await scratch();
  const refused = await runCli(['quota', '--address', `127.0.0.1:${port}`], { cwd: elsewhere, env: { npm_command: '' } });
  expect(refused.exitCode).toBe(1);
  const hint = /start a local one there with `(.+)`, or set/.exec(String(refused.stderr))?.[1];
  expect(hint).toContain(`dev --port ${port} --ui-port ${port + 1000}`);
  const dev = paste(hint!, elsewhere);
  try {
    // The new server has the default namespace only, not this file's (an empty TEMPORAL_NAMESPACE counts as unset).
    await waitFor(
      `a server at 127.0.0.1:${port}`,
      async () => (await runCli(['quota', '--address', `127.0.0.1:${port}`], { cwd: elsewhere, env: { TEMPORAL_NAMESPACE: '' } })).exitCode === 0,
      120_000,
    );
  } finally {
    dev.kill('SIGINT');
    await dev;
  }
});

test("the search-attribute refusal's command runs as printed from another directory on a fresh clone's PATH (no `temporal` on it): pasted, it registers them", async () => {
  const namespace = `bare-${process.pid}`;
  await createNamespace(env(), address(), namespace);
  const elsewhere = await scratch();
  const refused = await runCli(['probe', '--profile', 'fake', '--namespace', namespace], { cwd: elsewhere, env: printingEnv() });
  const command = /register them with `(.+)`; nothing was started/.exec(String(refused.stderr))?.[1];
  expect(command).toBeDefined();
  // The operator's shell finds no `temporal` on PATH: the line names the Temporal CLI it runs.
  expect(command).not.toMatch(/^temporal /);
  const registered = await paste(command!, elsewhere);
  expect(registered.stderr).toBe('');
  expect(registered.exitCode).toBe(0);
  const listed = await env().client.connection.operatorService.listSearchAttributes({ namespace });
  expect(Object.keys(listed.customAttributes ?? {})).toEqual(
    expect.arrayContaining(['CommonplaceKind', 'CommonplaceStatus', 'CommonplaceSubject', 'CommonplaceProfile']),
  );
});

/** Whether nothing listens on a loopback port. */
async function portFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
