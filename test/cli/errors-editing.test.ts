/**
 * The editing commands' error paths (review run full-pass|revise, review approve|acknowledge,
 * review packet), through the real CLI: each exits 1 with one line on stderr naming what is wrong,
 * prints nothing on stdout and writes nothing. None needs a Temporal server: an unreachable address
 * is one of the error paths.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { corpusCopy } from '../helpers/kb.js';
import { scratch } from '../helpers/fake.js';
import { gitCorpus, NOTE } from '../review-edit/helpers.js';
import { packetPath } from '../../src/review/edit/packet.js';
import { runDirOf } from '../../src/review/edit/runs.js';

const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
/** A run that has a run.json (as a started run writes it) and nothing else. */
const RUN = 'full-pass-notes_agent-is-a-tool-loop-000000000000';

let checkout: string;
let outside: string;
let plain: string;

/** Runs the CLI in the checkout and checks the error's form: exit 1, nothing on stdout, one `commonplace: …` line on stderr. */
async function refused(args: string[], options: { cwd?: string } = {}): Promise<string> {
  const result = await runCli(args, { env: offline, cwd: options.cwd ?? checkout });
  expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode: 1, stdout: '' });
  const stderr = String(result.stderr);
  expect(stderr).toMatch(/^commonplace: [^\n]+$/);
  return stderr;
}

/** A usage error: exit 1, commander's `error: …` line (then the help), nothing on stdout. */
async function usage(args: string[]): Promise<string> {
  const result = await runCli(args, { env: offline, cwd: checkout });
  expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode: 1, stdout: '' });
  expect(result.stderr).toMatch(/^error: /);
  return String(result.stderr);
}

/** What the checkout's machine-local state holds: nothing of these commands may appear. */
const state = async () => (await readdir(join(checkout, 'kb', 'reports'), { recursive: true }).catch(() => [])).sort();

beforeAll(async () => {
  checkout = await gitCorpus();
  outside = await scratch();
  plain = await corpusCopy();
  const dir = runDirOf(checkout, RUN);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'run.json'), JSON.stringify({ kind: 'full-pass', runId: RUN, workflowId: `full-pass/x/${NOTE}/000000000000`, note: NOTE }));
});

describe('review run full-pass and revise', () => {
  test.each([
    ['a note that does not exist', ['review', 'run', 'full-pass', 'kb/notes/no-such-note.md'], /^commonplace: kb\/notes\/no-such-note\.md: no such note in /],
    ['a path outside kb/', ['review', 'run', 'full-pass', 'README.md'], /README\.md: note path `README\.md` must be repository-relative and start with kb\//],
    ['--concurrency 0', ['review', 'run', 'full-pass', NOTE, '--concurrency', '0'], /--concurrency must be a positive whole number, got "0"/],
    [
      '--max-cost that is not an amount',
      ['review', 'run', 'full-pass', NOTE, '--max-cost', 'lots'],
      /--max-cost must be a positive amount of US dollars, got "lots"/,
    ],
    [
      '--plan and --assess together',
      ['review', 'run', 'revise', NOTE, '--plan', 'plan.yaml', '--assess'],
      /--plan and --assess choose the work two ways; give one$/,
    ],
    [
      'a --plan file that does not exist',
      ['review', 'run', 'revise', NOTE, '--plan', '/nonexistent/plan.yaml'],
      /--plan \/nonexistent\/plan\.yaml: no such file/,
    ],
    ['an unreachable server', ['review', 'run', 'full-pass', NOTE], /cannot reach Temporal at 127\.0\.0\.1:1/],
  ])('%s is refused before anything starts', async (_label, args, message) => {
    const before = await state();
    expect(await refused(args as string[])).toMatch(message);
    expect(await state()).toEqual(before);
  });

  test('a --plan naming an unknown pass is refused, naming the pass', async () => {
    const plan = join(outside, 'bad-plan.yaml');
    await writeFile(plan, 'passes: [shorten]\n');
    expect(await refused(['review', 'run', 'revise', NOTE, '--plan', plan])).toMatch(/is not a valid plan: .*unknown pass "shorten"/);
  });

  test('outside a KB checkout the command says where it looked', async () => {
    expect(await refused(['review', 'run', 'full-pass', NOTE], { cwd: outside })).toMatch(
      /is not inside a Git checkout; run inside a KB checkout or pass --kb DIR$/,
    );
  });

  test('a checkout outside Git is refused: the checkout guard needs Git', async () => {
    expect(await refused(['review', 'run', 'full-pass', NOTE, '--kb', plain])).toMatch(/the checkout guard needs Git: .* is not inside a Git working tree/);
  });

  test.each([
    ['--json with --detach', ['review', 'run', 'full-pass', NOTE, '--json', '--detach'], /option '--json' cannot be used with option '--detach'/],
    ['an unknown option', ['review', 'run', 'revise', NOTE, '--plans', 'x'], /unknown option '--plans'/],
    ['a missing note', ['review', 'run', 'full-pass'], /missing required argument 'note'/],
  ])('%s is a usage error (exit 1)', async (_label, args, message) => {
    expect(await usage(args as string[])).toMatch(message);
  });
});

describe('review approve and acknowledge', () => {
  test('approve of an unknown run names the run.json it looked for, before asking the server', async () => {
    expect(await refused(['review', 'approve', 'full-pass-no-such-run', 'artifact/publication.json', '--key', '0123456789abcdef'])).toMatch(
      /no run full-pass-no-such-run in .* \(no .*run\.json\)/,
    );
  });

  test('approve of a file not in the run directory is refused, naming the directory', async () => {
    expect(await refused(['review', 'approve', RUN, 'artifact/publication.json', '--key', '0123456789abcdef'])).toMatch(
      /artifact\/publication\.json: no such file in the run directory /,
    );
  });

  test('approve without --key is a usage error (exit 1)', async () => {
    expect(await usage(['review', 'approve', RUN, 'run.json'])).toMatch(/required option '--key <key>' not specified/);
  });

  test('approve with --json and --detach is a usage error (exit 1)', async () => {
    expect(await usage(['review', 'approve', RUN, 'run.json', '--key', 'k', '--json', '--detach'])).toMatch(/cannot be used with option '--detach'/);
  });

  test('approve of a known run with a server that cannot be reached says so', async () => {
    expect(await refused(['review', 'approve', RUN, 'run.json', '--key', '0123456789abcdef'])).toMatch(/cannot reach Temporal at 127\.0\.0\.1:1/);
  });

  test('acknowledge of an unknown run names the run.json it looked for', async () => {
    expect(await refused(['review', 'acknowledge', 'revise-no-such-run'])).toMatch(/no run revise-no-such-run in /);
  });

  test('acknowledge with a server that cannot be reached says so', async () => {
    expect(await refused(['review', 'acknowledge', RUN])).toMatch(/cannot reach Temporal at 127\.0\.0\.1:1/);
  });
});

describe('review packet', () => {
  test.each([
    ['a note with no published packet', [NOTE], /has no published packet/],
    ['a subject that is neither a run nor a note', ['no-such-run'], /no-such-run is neither a run of this checkout nor a note/],
    ['a run with no packet yet', [RUN], new RegExp(`run ${RUN} has no packet yet`)],
  ])('%s is refused', async (_label, args, message) => {
    expect(await refused(['review', 'packet', ...(args as string[]), '--json'])).toMatch(message);
  });

  test('a published packet that is not a packet is refused, naming the file', async () => {
    const other = await gitCorpus();
    const file = join(other, packetPath(NOTE, 'revise'));
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, 'no frontmatter\n');
    expect(await refused(['review', 'packet', NOTE], { cwd: other })).toMatch(/revise\.md is not a packet: .*frontmatter/);
  });

  test('outside a KB checkout the command says where it looked', async () => {
    expect(await refused(['review', 'packet', NOTE], { cwd: outside })).toMatch(/is not inside a Git checkout; run inside a KB checkout or pass --kb DIR$/);
  });
});
