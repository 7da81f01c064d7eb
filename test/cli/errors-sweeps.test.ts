// Every error path of the sweep commands (review status, run gates, retry, cancel, schedule …):
// exit 1, one line on stderr naming what is wrong, and nothing written to the checkout. None needs
// a Temporal server: where a command gets as far as connecting, the address answers nothing.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { runCli } from '../helpers/cli.js';
import { copyToTemp, makeTemp, miniFixture, removeTemps } from '../review/helpers.js';

const UNREACHABLE = '127.0.0.1:1';

let checkout: string;
let scenario: string;
let before: string[];

/** Every path in the checkout, so a test can say nothing was written. */
async function tree(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).map(String).sort();
}

beforeAll(async () => {
  checkout = await copyToTemp(miniFixture);
  await mkdir(path.join(checkout, '.git'));
  scenario = path.join(await makeTemp(), 'scenario.json');
  await writeFile(scenario, JSON.stringify({ launches: [{ attempts: [{ review: 'pass' }] }] }));
  before = await tree(checkout);
});
afterAll(removeTemps);

const fake = () => ['--profile', 'fake', '--scenario', scenario];

type Row = { args: () => string[]; message: RegExp; cwd?: () => string };

const rows: Record<string, Row> = {
  'run gates --grouping triple': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, '--grouping', 'triple'],
    message: /--grouping must be pair or bundle, got "triple"/,
  },
  'run gates --concurrency 0': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, '--concurrency', '0'],
    message: /--concurrency must be a positive whole number, got "0"/,
  },
  'run gates --batch-size many': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, '--batch-size', 'many'],
    message: /--batch-size must be a positive whole number, got "many"/,
  },
  'run gates --batch --live': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, '--batch', '--live'],
    message: /--batch and --live exclude each other: give one/,
  },
  'run gates --max-cost -1': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, '--max-cost', '-1'],
    message: /--max-cost must be a positive amount of US dollars, got "-1"/,
  },
  'run gates --resume X --max-cost free': {
    args: () => ['review', 'run', 'gates', '--resume', 'GS-x', '--max-cost', 'free'],
    message: /--max-cost must be a positive amount/,
  },
  'run gates --kb a missing directory': {
    args: () => ['review', 'run', 'gates', '--kb', path.join(checkout, 'nowhere')],
    message: /--kb .*nowhere: .* is not a directory/,
  },
  'run gates outside any checkout': {
    args: () => ['review', 'run', 'gates'],
    cwd: () => '/',
    message: /\/ is not inside a Git checkout; run inside a KB checkout or pass --kb DIR/,
  },
  'run gates --notes matching nothing': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, ...fake(), '--notes', 'kb/notes/nothing.md'],
    message: /kb\/notes\/nothing\.md: matches no reviewable note/,
  },
  'run gates --gates matching nothing': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, ...fake(), '--gates', 'nolens/*'],
    message: /nolens\/\*: matches no gate/,
  },
  'run gates --scenario a missing file': {
    args: () => ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', path.join(checkout, 'none.json')],
    message: /--scenario .*none\.json: no such file/,
  },
  'run gates with no server': { args: () => ['review', 'run', 'gates', '--kb', checkout, ...fake()], message: /cannot reach Temporal at 127\.0\.0\.1:1/ },
  'run gates --resume with no server': { args: () => ['review', 'run', 'gates', '--resume', 'GS-x'], message: /cannot reach Temporal at 127\.0\.0\.1:1/ },
  'retry --kb a directory without kb/': {
    args: () => ['review', 'retry', 'GS-x', '--kb', path.join(checkout, 'kb', 'notes')],
    message: /holds no kb\/ directory/,
  },
  'retry with no server': { args: () => ['review', 'retry', 'GS-x', '--kb', checkout], message: /cannot reach Temporal at 127\.0\.0\.1:1/ },
  'status --notes matching nothing': {
    args: () => ['review', 'status', '--kb', checkout, '--notes', 'kb/notes/nothing.md'],
    message: /kb\/notes\/nothing\.md: matches no reviewable note/,
  },
  'status outside any checkout': { args: () => ['review', 'status'], cwd: () => '/', message: /is not inside a Git checkout/ },
  'cancel --grace soon': {
    args: () => ['review', 'cancel', 'GS-x', '--grace', 'soon'],
    message: /--grace must be a number of seconds \(0 or more\), got "soon"/,
  },
  'cancel with no server': { args: () => ['review', 'cancel', 'GS-x'], message: /cannot reach Temporal at 127\.0\.0\.1:1/ },
  'schedule create with a bad name': {
    args: () => ['review', 'schedule', 'create', 'Nightly', '--every', '24h', '--kb', checkout],
    message: /schedule name "Nightly" must be lowercase letters, digits and hyphens/,
  },
  'schedule create with no interval': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--kb', checkout],
    message: /give exactly one of --every INTERVAL or --cron EXPR/,
  },
  'schedule create with --every and --cron': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--every', '24h', '--cron', '0 3 * * *', '--kb', checkout],
    message: /give exactly one of --every INTERVAL or --cron EXPR/,
  },
  'schedule create --every soon': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--every', 'soon', '--kb', checkout],
    message: /--every must be an interval such as 24h, 30m or 90s, got "soon"/,
  },
  'schedule create --every 0s': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--every', '0s', '--kb', checkout],
    message: /--every must be longer than nothing \(an interval such as 24h, 30m or 90s\), got "0s"/,
  },
  'schedule create --cron "every day"': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--cron', 'every day', '--kb', checkout],
    message: /--cron must be a cron expression of five fields .*, got "every day"/,
  },
  'schedule create --overlap sometimes': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--every', '24h', '--overlap', 'sometimes', '--kb', checkout],
    message: /--overlap must be one of skip, buffer-one, .*, got "sometimes"/,
  },
  'schedule create --concurrency -2': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--every', '24h', '--concurrency', '-2', '--kb', checkout],
    message: /--concurrency must be a positive whole number/,
  },
  'schedule create with no server': {
    args: () => ['review', 'schedule', 'create', 'nightly', '--every', '24h', '--kb', checkout, ...fake()],
    message: /cannot reach Temporal at 127\.0\.0\.1:1/,
  },
  'schedule list with no server': { args: () => ['review', 'schedule', 'list', '--json'], message: /cannot reach Temporal at 127\.0\.0\.1:1/ },
  'schedule pause with a bad name': { args: () => ['review', 'schedule', 'pause', 'No Such'], message: /schedule name "No Such" must be lowercase letters/ },
  'schedule trigger with no server': { args: () => ['review', 'schedule', 'trigger', 'nightly'], message: /cannot reach Temporal at 127\.0\.0\.1:1/ },
  'schedule delete with no server': { args: () => ['review', 'schedule', 'delete', 'nightly'], message: /cannot reach Temporal at 127\.0\.0\.1:1/ },
};

describe("the sweep commands' error paths", () => {
  test.each(Object.entries(rows))('%s exits 1 with one line naming what is wrong, writing nothing', async (_name, row) => {
    const run = await runCli(row.args(), { env: { TEMPORAL_ADDRESS: UNREACHABLE, NO_COLOR: '1' }, cwd: row.cwd?.() ?? checkout });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    const lines = String(run.stderr)
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^commonplace: /);
    expect(lines[0]).toMatch(row.message);
    expect(await tree(checkout)).toEqual(before);
  });

  test.each([
    [['review', 'run', 'gates', '--bogus']],
    [['review', 'retry']],
    [['review', 'schedule', 'create', 'nightly', '--overlap']],
    [['review', 'cancel']],
  ])("the usage error %j exits 1 with its one line and one hint naming the command's help", async (args) => {
    const run = await runCli(args, { env: { TEMPORAL_ADDRESS: UNREACHABLE }, cwd: checkout });
    expect(run.exitCode).toBe(1);
    const command = args.filter((arg) => !arg.startsWith('-') && arg !== 'nightly').join(' ');
    expect(String(run.stderr).trimEnd().split('\n')).toEqual([expect.stringMatching(/^error: /), `see commonplace ${command} --help`]);
  });
});
