/**
 * The analysis CLI's files (cli.test.ts: prepare and run; cli-reset-integrate.test.ts: reset and integrate):
 * a prepared run made by the CLI itself, its scenario, its workflow ID and the checkout's run branches.
 */
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { fakeScenario, type FakeAttempt } from '../helpers/fake.js';
import { checkoutIdOf } from '../helpers/kb.js';
import { cleanMembers, git, roleRules, scratch, sourceIdentity, toyCheckout, toyPrepareArgs, toyProfiles, type Role } from './helpers.js';

export interface Prepared {
  checkout: string;
  runId: string;
  worktree: string;
  dir: string;
  cliEnv: Record<string, string>;
}

/** The CLI's prepare and its prepared runs against the file's server (`address`). */
export function analysisCli(address: () => string) {
  let systems = 0;
  /** A system name no other test of the file uses, so run IDs (and workflow IDs on the one server) differ. */
  const nextSystem = () => `toy-cli-${(systems += 1)}`;

  const prepare = (checkout: string, system: string, extra: string[] = []) =>
    runCli([...toyPrepareArgs(checkout, system), ...extra], { env: { TEMPORAL_ADDRESS: address() } });

  const prepared = async (system = nextSystem()): Promise<Prepared> => {
    const checkout = await toyCheckout();
    const result = await prepare(checkout, system);
    // The one line a first command on a checkout may say: which machine-local directories Git now ignores.
    expect(result.stderr).toMatch(/^(added \S+( \S+)? to \.git\/info\/exclude: machine-local run state and review results, never committed\n)?$/);
    const runId = /^prepared (\S+)$/m.exec(String(result.stdout))?.[1] ?? '';
    const worktree = join(checkout, '..', 'worktrees', runId);
    return { checkout, runId, worktree, dir: await scratch(), cliEnv: { TEMPORAL_ADDRESS: address() } };
  };

  return { nextSystem, prepare, prepared };
}

export async function scenarioFor(run: Prepared, overrides: (clean: Record<Role, string>) => Partial<Record<Role, FakeAttempt[]>> = () => ({})) {
  const clean = cleanMembers(run.runId, await sourceIdentity());
  const { scenario, ledger } = await fakeScenario(run.dir, roleRules(clean, overrides(clean)));
  return { scenario, ledger, args: ['--profiles', await toyProfiles(run.dir), '--scenario', scenario, '--kb', run.checkout] };
}

/** The run's workflow ID: its checkout's ID and its run ID. */
export const workflowOf = (run: { checkout: string; runId: string }) => `analysis/${checkoutIdOf(run.checkout)}/${run.runId}`;

/** A `--json` command's document: its exit code as said, the shape checked, and at least `fields`. */
export function expectJson(result: { exitCode?: number; stdout?: unknown }, shape: string, exitCode: number, fields: Record<string, unknown>) {
  expect(result.exitCode).toBe(exitCode);
  const document = expectShape(String(result.stdout), shape);
  expect(document).toEqual(expect.objectContaining(fields));
  return document;
}

/** `analysis run --json`'s outcome: the run-outcome shape naming the run and its workflow, with its exit code (and `fields`). */
export const expectRunOutcome = (result: { exitCode?: number; stdout?: unknown }, run: Prepared, exitCode: number, fields: Record<string, unknown>) =>
  expectJson(result, 'run-outcome', exitCode, { workflowId: workflowOf(run), runId: run.runId, exitCode, ...fields });
export const branches = async (checkout: string) =>
  (await git(checkout, 'branch', '--list', 'analysis/*', '--format=%(refname:short)')).split('\n').filter(Boolean);
