import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { cliOn, editedText, editorRule, gitCorpus, NOTE, noteText, reviewsPass, runDir, runOf } from '../review-edit/helpers.js';
import { computedOnce } from '../helpers/once.js';
import { fakeSweep } from '../helpers/sweep.js';

const { address } = useDevServerWithCliWorker();

const gates = 'frontmatter/*';
/** No Temporal server listens here: the CLI cannot connect. */
const UNREACHABLE = '127.0.0.1:1';

describe('review inspect of a closed sweep with one problem pair', () => {
  const results = computedOnce(async () => {
    let spent = '';
    // The spent pair's answer never passes the check: its attempt budget is spent, and it is the sweep's problem.
    const sweep = await fakeSweep(
      async ({ checkout, notes }) => {
        spent = (await selectPairs(checkout, { notes, gates: [gates], criteria: ['gates'] }))[0]!.criterion;
        return [
          { match: `criterion = ${spent}$`, attempts: [{ review: 'pass', malformed: [spent] }] },
          { attempts: [{ review: 'pass', costUsd: 0.25, tokens: { input: 1200, output: 300 } }] },
        ];
      },
      { gates: [gates] },
    );
    const {
      checkout,
      notes: [note],
    } = sweep;
    const swept = await runCli(sweep.command({ concurrency: 1 }), { env: sweep.cliEnv(address()) });
    expect(swept.exitCode).toBe(2);
    const run = /^sweep (GS-\S+) ended exhausted/m.exec(String(swept.stdout))?.[1] ?? 'no run shown';
    const started = (await sweep.starts()).length;
    const inspect = (address: string, ...extra: string[]) =>
      runCli(['review', 'inspect', run, '--kb', checkout, ...extra], { env: { TEMPORAL_ADDRESS: address } });
    const inspected = await inspect(address());
    const json = await inspect(address(), '--json');
    const offline = await inspect(UNREACHABLE);
    const offlineJson = await inspect(UNREACHABLE, '--json');
    return { checkout, run, spent, note, started, inspected, json, offline, offlineJson };
  });

  test('it prints the status, the stop with its evidence, and the one next command', () => {
    const { checkout, run, inspected } = results();
    expect(inspected.exitCode).toBe(0);
    expect(inspected.stdout).toMatch(new RegExp(`^sweep ${run}: exhausted \\(from \\S+summary\\.json\\)$`, 'm'));
    expect(inspected.stdout).toMatch(/^ {2}budget-exhausted \(operator\): 1 pair spent the attempt budget/m);
    expect(inspected.stdout).toContain(`evidence: ${join(runDir(checkout, run), 'problems.jsonl')}`);
    expect(inspected.stdout).toMatch(new RegExp(`^ {2}next: node \\S+ review retry ${run} --kb ${checkout}( --address \\S+( --namespace \\S+)?)?$`, 'm'));
  });

  test('it lists every launch from the workflow histories with its outcome, duration, tokens and cost', () => {
    const { run, started, inspected } = results();
    expect(inspected.stdout).toMatch(new RegExp(`^launches \\(${started}, from the workflow histories; IDs under ${run}/\\)$`, 'm'));
    const lines = String(inspected.stdout)
      .split('\n')
      .filter((line) => /^ {2}\S+: (completed|incomplete|timed-out|failed)/.test(line));
    expect(lines).toHaveLength(started);
    expect(lines.some((line) => /completed · \S+ · 1\.2k in, 0\.3k out, 0\.0k cache read, 0\.0k cache write · \$0\.2500 · model /.test(line))).toBe(true);
  });

  test('it shows the problem pair with its findings', () => {
    const { spent, note, inspected } = results();
    expect(inspected.stdout).toMatch(/^problems \(1, from \S+problems\.jsonl\)$/m);
    expect(inspected.stdout).toContain(`  ${note} × ${spent}: `);
    expect(inspected.stdout).toMatch(/^ {4}findings:\n {6}fail \S+/m);
  });

  test('--json prints one review-inspect document with the launches and the problem', () => {
    const { checkout, run, spent, note, started, json } = results();
    expect(json.exitCode).toBe(0);
    const document = expectShape(String(json.stdout), 'review-inspect');
    expect(document).toMatchObject({
      kind: 'sweep',
      runId: run,
      workflowId: `gates/${run}`,
      status: 'exhausted',
      live: false,
      runDir: runDir(checkout, run),
      next: `commonplace review retry ${run}`,
    });
    const launches = document.launches as {
      source: string;
      records: { outcome: string; durationMs: number | null; costUsd: number | null; tokens: { input: number } | null }[];
    };
    expect(launches.source).toBe('history');
    expect(launches.records).toHaveLength(started);
    expect(launches.records.every((record) => record.outcome === 'completed' && typeof record.durationMs === 'number')).toBe(true);
    expect(launches.records.some((record) => record.costUsd === 0.25 && record.tokens?.input === 1200)).toBe(true);
    const problems = document.problems as { note: string; criterion: string; findings: unknown[] }[];
    expect(problems).toEqual([
      expect.objectContaining({ note, criterion: spent, findings: expect.arrayContaining([expect.objectContaining({ severity: 'fail' })]) }),
    ]);
  });

  test('with no server it prints the run from its run directory and says the launches are not available', () => {
    const { checkout, run, spent, note, offline, offlineJson } = results();
    expect(offline.exitCode).toBe(0);
    expect(offline.stdout).toMatch(new RegExp(`^sweep ${run}: exhausted \\(from \\S+summary\\.json; no server answers`, 'm'));
    expect(offline.stdout).toMatch(/^launches: not available: the run directory holds no launch records and no server answers/m);
    expect(offline.stdout).toContain(`  ${note} × ${spent}: `);
    expect(offline.stdout).toMatch(new RegExp(`^ {2}next: node \\S+ review retry ${run} --kb ${checkout}( --address \\S+( --namespace \\S+)?)?$`, 'm'));
    const document = expectShape(String(offlineJson.stdout), 'review-inspect');
    expect(document).toMatchObject({
      status: 'exhausted',
      live: false,
      launches: { source: 'unavailable', records: [] },
      problems: [expect.objectContaining({ criterion: spent })],
    });
  });
});

test('review inspect of an open sweep stopped by a usage limit reads it live: status stopped, the stop and its resume', async () => {
  const checkout = await corpusCopy();
  const notes = await someNotes(1);
  const { scenario } = await fakeScenario(await scratch(), [{ attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }] }]);
  const cliEnv = { env: { TEMPORAL_ADDRESS: address() } };
  const stopped = await runCli(
    ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', gates, '--concurrency', '1', '--notes', notes[0]!],
    cliEnv,
  );
  expect(stopped.exitCode).toBe(2);
  const run = /(GS-[0-9a-f]{8}-[0-9a-f]{10})/.exec(String(stopped.stdout))?.[1] ?? 'no run shown';

  const inspected = await runCli(['review', 'inspect', `gates/${run}`, '--kb', checkout], cliEnv);
  expect(inspected.exitCode).toBe(0);
  expect(inspected.stdout).toMatch(new RegExp(`^sweep ${run}: stopped \\(live from workflow gates/${run}\\)$`, 'm'));
  expect(inspected.stdout).toMatch(/^ {2}usage-limit \(retry\): /m);
  expect(inspected.stdout).toMatch(/^ {4}the limit resets at 2026-01-01T04:00:00\.000Z$/m);
  expect(inspected.stdout).toMatch(new RegExp(`^ {2}next: node \\S+ review run gates --resume ${run} --kb \\S+( --address \\S+( --namespace \\S+)?)?$`, 'm'));
  expect(inspected.stdout).toMatch(/^problems \(0, /m);

  const document = expectShape(String((await runCli(['review', 'inspect', run, '--kb', checkout, '--json'], cliEnv)).stdout), 'review-inspect');
  expect(document).toMatchObject({
    status: 'stopped',
    live: true,
    stops: [{ kind: 'usage-limit', resetAt: '2026-01-01T04:00:00.000Z' }],
    launches: { source: 'history' },
  });
  // The usage-limited launch failed its activity: it is listed, with why.
  expect((document.launches as { records: { outcome: string; message?: string }[] }).records).toEqual([
    expect.objectContaining({ outcome: 'failed', message: expect.stringMatching(/usage limit/i) }),
  ]);
  await runCli(['review', 'cancel', run, '--kb', checkout], cliEnv);
});

test('review inspect of a full pass awaiting approval shows its proposal key, its packet and its launches', async () => {
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const { scenario } = await fakeScenario(await scratch(), [editorRule({ edited: editedText(start), decision: 'edit' }), { attempts: [reviewsPass] }]);
  const { runId } = runOf('full-pass', NOTE, start, checkout);
  const stopped = await cliOn(checkout, address(), ['review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario]);
  expect(stopped.exitCode).toBe(2);
  const key = /key: ([0-9a-f]{16})/.exec(stopped.stdout)?.[1] ?? 'no key shown';

  const inspected = await cliOn(checkout, address(), ['review', 'inspect', runId]);
  expect(inspected.exitCode).toBe(0);
  expect(inspected.stdout).toMatch(new RegExp(`^full-pass ${runId} of ${NOTE}: awaiting-approval \\(live from workflow full-pass/`, 'm'));
  expect(inspected.stdout).toMatch(new RegExp(`^ {2}artifact/publication\\.json: key ${key} \\(decision \\d+, waiting for approval\\)$`, 'm'));
  expect(inspected.stdout).toMatch(
    new RegExp(`^ {2}next: node \\S+ review approve ${runId} artifact/publication\\.json --key ${key} --kb \\S+( --address \\S+( --namespace \\S+)?)?$`, 'm'),
  );
  expect(inspected.stdout).toMatch(/^packet \S+packet\.md\n {2}decision edit, closing /m);
  expect(inspected.stdout).toMatch(/^launches \([1-9]\d*, from the workflow histories; IDs under \S+\/\)$/m);

  const document = expectShape((await cliOn(checkout, address(), ['review', 'inspect', runId, '--json'])).stdout, 'review-inspect');
  expect(document).toMatchObject({
    kind: 'full-pass',
    runId,
    status: 'awaiting-approval',
    live: true,
    proposals: [{ path: 'artifact/publication.json', key, waiting: true }],
    packet: { decision: 'edit' },
  });
  await cliOn(checkout, address(), ['review', 'cancel', runId]);
});

test.each([
  {
    run: 'GS-00000000-0000000000',
    message: /^commonplace: no sweep or editing run GS-00000000-0000000000 in \S+: no \S+, and no workflow gates\/GS-00000000-0000000000 on the server$/,
  },
  {
    run: '../elsewhere',
    message: /^commonplace: \.\.\/elsewhere is not a run ID \(letters, digits, \. _ -\) nor a workflow ID \(gates\/…, full-pass\/…, revise\/…\)$/,
  },
])('review inspect $run exits 1 with one line', async ({ run, message }) => {
  const checkout = await corpusCopy();
  const result = await runCli(['review', 'inspect', run, '--kb', checkout], { env: { TEMPORAL_ADDRESS: address() } });
  expect(result.exitCode).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(String(result.stderr).split('\n')).toHaveLength(1);
});
