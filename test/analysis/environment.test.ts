import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkEnvironment, methodIdentity } from '../../src/activities/analysis/environment.js';
import type { PreparedRun } from '../../src/activities/analysis/prepare.js';
import type { RunParameters } from '../../src/analysis/parameters.js';
import { git, prepareToy, toyCheckout } from './helpers.js';

async function fresh(): Promise<PreparedRun> {
  return prepareToy(await toyCheckout());
}

describe('the environment assertion', () => {
  test('a freshly prepared run is in the environment it was prepared in', async () => {
    const run = await fresh();
    expect(await checkEnvironment(run.parameters, run.runDir)).toEqual(expect.objectContaining({ ok: true, problems: [] }));
  });

  test.each<[string, (run: PreparedRun) => Promise<{ parameters?: Partial<RunParameters>; method?: Awaited<ReturnType<typeof methodIdentity>> }>, RegExp]>([
    [
      'HEAD moved',
      async (run) => (await git(run.worktree, 'commit', '--quiet', '--allow-empty', '-m', 'moved'), {}),
      /^HEAD of \S+ is [0-9a-f]{40}, but the run was prepared at [0-9a-f]{40}$/,
    ],
    [
      'a file changed outside run state',
      async (run) => (await writeFile(join(run.worktree, 'kb', 'notes', 'README.md'), 'edited\n'), {}),
      /^the worktree has changes outside run state: kb\/notes\/README\.md \(git -C \S+ status\)$/,
    ],
    [
      'another package is running',
      async () => ({ method: { ...(await methodIdentity()), commit: '0'.repeat(40) } }),
      /^the running package is commonplace-temporal@\S+ \(commit 0{40}\), but the run was prepared with commonplace-temporal@\S+ \(commit [0-9a-f]{40}\)$/,
    ],
    [
      'an uncommitted startup file at the worktree root',
      async (run) => (await writeFile(join(run.worktree, 'CLAUDE.md'), 'new standing orders\n'), {}),
      /^startup file CLAUDE\.md in the worktree is not committed \(a worker would load it\)$/,
    ],
    [
      'a startup file in run state, above every launch',
      async (run) => (await mkdir(join(run.runDir, 'launches'), { recursive: true }), await writeFile(join(run.runDir, 'launches', 'AGENTS.md'), 'x\n'), {}),
      /^\.commonplace\/analysis\/\S+\/launches\/AGENTS\.md appeared in run state, where every launch would load it$/,
    ],
    [
      'the plan hashing otherwise than at prepare',
      async () => ({ parameters: { planSha256: 'f'.repeat(64) } }),
      /^the plan kb\/instructions\/toy-analysis\/plan\.yaml changed since prepare/,
    ],
  ])('%s is a changed environment, said in one line', async (_label, change, message) => {
    const run = await fresh();
    const { parameters, method } = await change(run);
    const report = await checkEnvironment({ ...run.parameters, ...parameters }, run.runDir, method);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
    expect(report.problems.every((problem) => !problem.includes('\n'))).toBe(true);
  });
});
