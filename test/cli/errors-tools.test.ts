/**
 * The error paths of dev, worker, probe, validate and quota: each exits 1 with one line on stderr
 * naming what is wrong (`commonplace: …`, or commander's `error: …` for a usage error), prints
 * nothing on stdout and writes nothing. None needs a Temporal server: an unreachable address is one
 * of the paths.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const unreachable = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

// A directory outside any Git checkout, where each command runs.
const dir = mkdtempSync(join(tmpdir(), 'commonplace-errors-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The line that says what is wrong: the last one for a command that said what it was doing first (the worker). */
const errorLine = (stderr: string) => stderr.trim().split('\n').at(-1) ?? '';

interface Row {
  name: string;
  args: string[];
  env?: Record<string, string>;
  line: RegExp;
  /** A path the command must not have created. */
  untouched?: string;
  /** Lines on stderr before the error that say what the command was doing. */
  before?: number;
}

const rows: Row[] = [
  {
    name: 'dev with a --port that is no number',
    args: ['dev', '--state', join(dir, 'dev-1'), '--port', 'abc'],
    line: /^commonplace: --port must be a port number from 1 to 65535, got "abc"$/,
    untouched: join(dir, 'dev-1'),
  },
  {
    name: 'dev with a --ui-port out of range',
    args: ['dev', '--state', join(dir, 'dev-2'), '--ui-port', '70000'],
    line: /^commonplace: --ui-port must be a port number .* got "70000"$/,
    untouched: join(dir, 'dev-2'),
  },
  {
    name: 'dev with the same --port and --ui-port',
    args: ['dev', '--state', join(dir, 'dev-3'), '--port', '7391', '--ui-port', '7391'],
    line: /^commonplace: --port and --ui-port must differ, both are 7391$/,
    untouched: join(dir, 'dev-3'),
  },
  {
    name: 'worker with --max-launches 0',
    args: ['worker', '--state', join(dir, 'worker-1'), '--max-launches', '0'],
    line: /^commonplace: --max-launches must be a positive whole number, got "0"$/,
    untouched: join(dir, 'worker-1'),
  },
  {
    name: 'worker with --max-launches 1.5',
    args: ['worker', '--max-launches', '1.5'],
    line: /^commonplace: --max-launches must be a positive whole number, got "1\.5"$/,
  },
  {
    name: 'worker against an unreachable server',
    args: ['worker', '--state', join(dir, 'worker-2')],
    env: unreachable,
    line: /^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 .*`\S*.* dev --port 1 --ui-port 1001[^`]*`/,
    untouched: join(dir, 'worker-2'),
    before: 2,
  },
  {
    name: 'worker with a --kb that is not a directory',
    args: ['worker', '--kb', join(dir, 'no-kb'), '--state', join(dir, 'worker-3')],
    env: unreachable,
    line: /^commonplace: --kb .*no-kb: .*no-kb is not a directory$/,
    untouched: join(dir, 'worker-3'),
    before: 1,
  },
  {
    name: 'worker with a --kb that holds no kb/',
    args: ['worker', '--kb', dir, '--state', join(dir, 'worker-4')],
    env: unreachable,
    line: /^commonplace: --kb .*: .* holds no kb\/ directory; name the checkout whose kb\/ holds the notes$/,
    untouched: join(dir, 'worker-4'),
    before: 1,
  },
  { name: 'probe without --profile', args: ['probe'], line: /^error: required option '--profile <name>' not specified$/ },
  {
    name: 'probe with a --scenario file that does not exist',
    args: ['probe', '--profile', 'fake', '--scenario', join(dir, 'nowhere.json')],
    env: unreachable,
    line: /^commonplace: --scenario .*nowhere\.json: no such file or directory$/,
  },
  {
    name: 'probe with a --profiles file that does not exist',
    args: ['probe', '--profile', 'fake', '--profiles', join(dir, 'nowhere.yaml')],
    env: unreachable,
    line: /^commonplace: --profiles .*nowhere\.yaml: no such file or directory$/,
  },
  {
    name: 'probe against an unreachable server',
    args: ['probe', '--profile', 'fake'],
    env: unreachable,
    line: /^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 .*`\S*.* dev --port 1 --ui-port 1001[^`]*`/,
  },
  {
    name: 'validate outside a checkout',
    args: ['validate'],
    line: /^commonplace: .* is not inside a Git checkout; run inside a KB checkout or pass --kb DIR$/,
  },
  {
    name: 'validate with a --kb that does not exist',
    args: ['validate', '--kb', join(dir, 'no-kb')],
    line: /^commonplace: --kb .*no-kb: .*no-kb is not a directory$/,
  },
  {
    name: 'validate with --layout but no draft',
    args: ['validate', '--layout', 'x.layout.yaml'],
    line: /^commonplace: --layout and --disposition apply to draft validation: commonplace validate <draft> --artifact <dir> --role <role>$/,
  },
  {
    name: 'validate with --role but no --artifact',
    args: ['validate', 'x.md', '--role', 'synthesis'],
    line: /^commonplace: --artifact and --role go together/,
  },
  {
    name: 'validate with an unknown --disposition',
    args: ['validate', 'x.md', '--artifact', 'a', '--role', 'r', '--disposition', 'weird'],
    line: /^commonplace: --disposition must be one of published, blocked, out-of-scope, got weird$/,
  },
  { name: 'quota against an unreachable server', args: ['quota'], env: unreachable, line: /^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 / },
  {
    name: 'quota --json against an unreachable server',
    args: ['quota', '--json'],
    env: unreachable,
    line: /^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 /,
  },
  { name: 'quota open without an account', args: ['quota', 'open'], line: /^error: missing required argument 'account'$/ },
  {
    name: 'quota open against an unreachable server',
    args: ['quota', 'open', 'claude/team'],
    env: unreachable,
    line: /^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 /,
  },
];

test.each(rows.map((row) => [row.name, row] as const))(
  '%s exits 1 with one line naming what is wrong',
  async (_name, { args, env, line, untouched, before = 0 }) => {
    const run = await runCli(args, { cwd: dir, env: { NO_COLOR: '1', ...env } });
    expect(run.exitCode).toBe(1);
    expect(String(run.stdout)).toBe('');
    const stderr = String(run.stderr);
    // A usage error from commander is followed by the command's help; the line that names the error comes first.
    const named = line.source.startsWith('^error:') ? stderr.split('\n')[0] : errorLine(stderr);
    expect(named).toMatch(line);
    if (!line.source.startsWith('^error:')) expect(stderr.trim().split('\n')).toHaveLength(1 + before);
    if (untouched !== undefined) expect(existsSync(untouched)).toBe(false);
  },
);
