/**
 * The analysis commands' error paths, through the real CLI: each exits 1 with one line on stderr
 * that names what is wrong, prints nothing on stdout and leaves nothing behind. None needs a
 * Temporal server: an unreachable address is one of the error paths.
 */
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { git, scratch, sourceFixture, toyCheckout, toyPrepareArgs } from '../analysis/helpers.js';

const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
/** Stands for the run beforeAll prepares in a table row (test.each rows are built before it runs). */
const RUN = '<run>';
const branches = async (checkout: string) => (await git(checkout, 'branch', '--list', 'analysis/*', '--format=%(refname:short)')).split('\n').filter(Boolean);

/** Runs the CLI and checks the error's form: exit 1, nothing on stdout, one `commonplace: …` line on stderr. */
async function refused(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  const result = await runCli(args, { env: { ...offline, ...options.env }, ...(options.cwd !== undefined && { cwd: options.cwd }) });
  expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode: 1, stdout: '' });
  const stderr = String(result.stderr);
  expect(stderr).toMatch(/^commonplace: [^\n]+$/);
  return stderr;
}

const NOT_A_CHECKOUT = /^commonplace: \S+ is not inside a Git checkout; run inside a KB checkout or pass --kb DIR$/;

let checkout: string;
let runId: string;
let outside: string;

beforeAll(async () => {
  checkout = await toyCheckout();
  outside = await scratch('commonplace-errors-analysis-');
  const prepared = await runCli([...toyPrepareArgs(checkout, 'toy-errors'), '--json'], { env: offline });
  expect(prepared.exitCode).toBe(0);
  runId = (JSON.parse(String(prepared.stdout)) as { runId: string }).runId;
});

describe('analysis prepare', () => {
  test.each([
    ['with a source that does not exist', { source: '/nonexistent/quill' }, /\/nonexistent\/quill/],
    ['with an unknown profile', { profile: 'no-such-profile' }, /no-such-profile/],
  ])('prepare %s is refused and makes nothing', async (_label, options, message) => {
    const before = await readdir(join(checkout, '..', 'worktrees'));
    expect(await refused(toyPrepareArgs(checkout, 'toy-refused', options))).toMatch(message);
    expect(await readdir(join(checkout, '..', 'worktrees'))).toEqual(before);
    expect(await branches(checkout)).toEqual([`analysis/${runId}`]);
  });

  test('prepare without --source is a usage error: exit 1, commander names the option, nothing is made', async () => {
    const result = await runCli([...toyPrepareArgs(checkout, 'toy-refused', { source: false }), '--json'], { env: offline });
    expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: required option '--source <source>' not specified$/m);
    expect(await branches(checkout)).toEqual([`analysis/${runId}`]);
  });

  test('prepare outside a Git checkout names the directory and says to pass --kb', async () => {
    expect(await refused(['analysis', 'prepare', 'toy', '--source', sourceFixture, '--profile', 'fake'], { cwd: outside })).toMatch(NOT_A_CHECKOUT);
    await expect(access(join(outside, '.commonplace'))).rejects.toThrow();
  });
});

describe('analysis run', () => {
  test.each([
    ['an unknown run', ['AAS-2026-01-01-nothing-01'], /AAS-2026-01-01-nothing-01/],
    ['a --max-cost that is not an amount', [RUN, '--max-cost', 'lots'], /^commonplace: --max-cost must be a positive amount of US dollars, got "lots"$/],
    ['a --max-cost of zero', [RUN, '--max-cost', '0'], /--max-cost must be a positive amount/],
    ['an unreachable Temporal server', [RUN], /127\.0\.0\.1:1/],
    ['an unreachable Temporal server, with --json', [RUN, '--json'], /127\.0\.0\.1:1/],
  ])('run is refused for %s, and nothing is started', async (_label, args, message) => {
    const resolved = (args as string[]).map((arg) => (arg === RUN ? runId : arg));
    expect(await refused(['analysis', 'run', ...resolved, '--kb', checkout])).toMatch(message);
  });

  test('run outside a KB checkout is refused', async () => {
    expect(await refused(['analysis', 'run', 'AAS-2026-01-01-toy-01'], { cwd: outside })).toMatch(NOT_A_CHECKOUT);
  });
});

describe('analysis inspect', () => {
  test('inspect of an unknown run names it', async () => {
    expect(await refused(['analysis', 'inspect', 'AAS-2026-01-01-nothing-01', '--kb', checkout, '--json'])).toMatch(/AAS-2026-01-01-nothing-01/);
  });

  test('inspect outside a KB checkout is refused', async () => {
    expect(await refused(['analysis', 'inspect', 'AAS-2026-01-01-toy-01'], { cwd: outside })).toMatch(NOT_A_CHECKOUT);
  });
});

describe('analysis reset', () => {
  test.each([
    ['a name that is not a run ID', ['quill'], /^commonplace: "quill" is not a run ID \(AAS-<YYYY-MM-DD>-<system>-<nn>\)$/],
    ['a --grace that is not a number of seconds', [RUN, '--grace', 'soon'], /^commonplace: --grace must be a number of seconds \(0 or more\), got "soon"$/],
    ['an unreachable Temporal server', [RUN, '--yes'], /127\.0\.0\.1:1/],
  ])('reset is refused for %s, and nothing is discarded', async (_label, args, message) => {
    const resolved = (args as string[]).map((arg) => (arg === RUN ? runId : arg));
    expect(await refused(['analysis', 'reset', ...resolved, '--kb', checkout])).toMatch(message);
    await access(join(checkout, '..', 'worktrees', runId));
    expect(await branches(checkout)).toEqual([`analysis/${runId}`]);
    await expect(access(join(checkout, '.commonplace', 'analysis', 'reset'))).rejects.toThrow();
  });
});

describe('analysis integrate', () => {
  test.each([
    ['an unknown run', ['AAS-2026-01-01-nothing-01'], /AAS-2026-01-01-nothing-01/],
    ['a run that is not published', [RUN, '--json'], /is not published \(its manifest \S+manifest\.json says prepared\)/],
  ])('integrate is refused for %s, and nothing is merged', async (_label, args, message) => {
    const head = await git(checkout, 'rev-parse', 'HEAD');
    const resolved = (args as string[]).map((arg) => (arg === RUN ? runId : arg));
    expect(await refused(['analysis', 'integrate', ...resolved, '--kb', checkout])).toMatch(message);
    expect(await git(checkout, 'rev-parse', 'HEAD')).toBe(head);
  });
});

describe('analysis install-method', () => {
  test('install-method into a directory without kb/ is refused and writes nothing', async () => {
    const bare = await scratch('commonplace-errors-analysis-bare-');
    expect(await refused(['analysis', 'install-method', '--kb', bare, '--json'])).toMatch(/kb\//);
    expect(await readdir(bare)).toEqual([]);
  });
});
