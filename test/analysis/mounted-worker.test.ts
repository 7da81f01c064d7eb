// A checkout worker that sees the checkout through a mount, as the compose file's checkout worker does:
// the real `commonplace worker` in a mount namespace of its own, where the host's directory of the
// checkout is an empty tmpfs and the checkout (and, in the compose layout, its run worktrees) is bound
// in. The CLI on the host prepares the run and starts it; the worker runs the run's activities.
import { afterEach, describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { runCli } from '../helpers/cli.js';
import { fakeScenario } from '../helpers/fake.js';
import { stateDir, type WorkerProcess, watchedWorker } from '../helpers/hosts.js';
import { useDevServer } from '../helpers/servers.js';
import { cleanMembers, roleRules, scratch, sourceFixture, sourceIdentity, toyCheckout, toyPlan, toyProfiles, writes } from './helpers.js';

const { address } = useDevServer();

// In the worker's own mount namespace: the checkout and its worktrees bound to $MNT, the host's directory
// of both covered by an empty tmpfs, then each bound where the worker is to see it ($SEEN_KB, $SEEN_WORKTREES).
const MOUNTED_WORKER = [
  'set -e',
  'mkdir -p "$MNT/kb" "$MNT/worktrees" "$WORKTREES"',
  'mount --bind "$CHECKOUT" "$MNT/kb"',
  'mount --bind "$WORKTREES" "$MNT/worktrees"',
  'mount -t tmpfs none "$HIDE"',
  'test ! -e "$CHECKOUT/kb"',
  'mkdir -p "$SEEN_KB"',
  'mount --bind "$MNT/kb" "$SEEN_KB"',
  'if [ -n "$SEEN_WORKTREES" ]; then mkdir -p "$SEEN_WORKTREES" && mount --bind "$MNT/worktrees" "$SEEN_WORKTREES"; fi',
  'echo "mounted: checkout at $SEEN_KB" >&2',
  'exec node bin/commonplace.js worker --kb "$SEEN_KB" --state "$STATE"',
].join('\n');

let workers: WorkerProcess[] = [];
afterEach(async () => {
  for (const worker of workers) {
    worker.process.kill('SIGINT');
    await worker.process;
  }
  workers = [];
});

/** A checkout worker that sees the checkout at `seenKb` and, when given, its worktrees at `seenWorktrees`. */
async function mountedWorker(checkout: string, seen: { kb: string; worktrees?: string }): Promise<WorkerProcess> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^COMMONPLACE_(KB|KB_LIST|STATE_DIR)$/.test(name)) env[name] = value;
  const worker = watchedWorker(
    execa('unshare', ['-m', 'sh', '-c', MOUNTED_WORKER], {
      cwd: packageRoot(),
      env: {
        ...env,
        TEMPORAL_ADDRESS: address(),
        CHECKOUT: checkout,
        WORKTREES: `${checkout}.worktrees`,
        HIDE: dirname(checkout),
        MNT: await scratch('commonplace-mnt-'),
        SEEN_KB: seen.kb,
        SEEN_WORKTREES: seen.worktrees ?? '',
        STATE: await stateDir(),
      },
      extendEnv: false,
      reject: false,
    }),
  );
  workers.push(worker);
  await worker.said(/mounted: checkout at/);
  await worker.said(/^worker ready on /m);
  return worker;
}

/** A toy checkout with a run prepared on the host (its worktree in the default place, beside the checkout), and the scenario that ends it out-of-scope at once. */
async function preparedOnHost() {
  const checkout = await toyCheckout();
  const dir = await scratch();
  const prepared = await runCli(
    ['analysis', 'prepare', 'toy-mounted', '--source', sourceFixture, '--profile', 'fake', '--plan', join(checkout, toyPlan), '--kb', checkout],
    { env: { TEMPORAL_ADDRESS: address() } },
  );
  expect(prepared.exitCode).toBe(0);
  const runId = /^prepared (\S+)$/m.exec(String(prepared.stdout))?.[1] ?? '';
  const clean = cleanMembers(runId, await sourceIdentity());
  const { scenario } = await fakeScenario(
    dir,
    roleRules(clean, { boundary: [writes('boundary', clean.boundary.replace('disposition: published', 'disposition: out-of-scope'))] }),
  );
  return { checkout, runId, args: ['analysis', 'run', runId, '--kb', checkout, '--profiles', await toyProfiles(dir), '--scenario', scenario] };
}

describe('a checkout worker that sees the checkout through a mount', () => {
  test('at another path with no worktrees there: the run fails naming the worktree it looked for and the worker that looked', async () => {
    const run = await preparedOnHost();
    const elsewhere = join(await scratch('commonplace-container-'), 'kb');
    await mkdir(elsewhere);
    await mountedWorker(run.checkout, { kb: elsewhere });
    const result = await runCli(run.args, { env: { TEMPORAL_ADDRESS: address() } });
    expect(result.exitCode).toBe(1);
    // The worker looked beside the path it sees the checkout at, where nothing is mounted, and says which worker it is.
    expect(String(result.stderr) + String(result.stdout)).toMatch(
      new RegExp(
        `parameters\\.json is missing: the run worktree \\S+${run.runId} is not on \\d+@${hostname().replace(/[.]/g, '\\.')} \\(a worker must see the checkout and its worktrees at the paths of the host that prepared the run`,
      ),
    );
    expect(String(result.stderr) + String(result.stdout)).not.toMatch(/the run was not prepared/);
  });

  test('at the host paths, the checkout and its worktrees mounted separately (the compose layout): the run goes through', async () => {
    const run = await preparedOnHost();
    await mountedWorker(run.checkout, { kb: run.checkout, worktrees: `${run.checkout}.worktrees` });
    const result = await runCli(run.args, { env: { TEMPORAL_ADDRESS: address() } });
    expect({ exitCode: result.exitCode, failed: /commonplace: /.test(String(result.stderr)) }).toEqual({ exitCode: 0, failed: false });
    expect(result.stdout).toMatch(new RegExp(`^run ${run.runId} ended out-of-scope`, 'm'));
  });
});
