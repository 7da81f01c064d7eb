/**
 * This release, and the oldest release whose runs its workers run (docs/upgrading.md, "What a release is"
 * and "The compatibility boundary"). A run's release is `<version>+<digest>`: package.json's version, its
 * human name, and the digest of the workflow code that began it (src/workflow-code.ts), which is also the
 * build ID of the workers that run that code. Every run carries the release it began on in its memo; a run
 * without one began on 0.1.0. A worker refuses a run begun before the oldest release it runs, in one line
 * naming the run, its release and the way out. Pure: the workflow interceptors import it.
 */
import { runCommand } from './runs/run-commands.js';
import { analysisRunIdOf, withoutBatchSegment } from './runs/workflow-ids.js';

/** This release's version: `package.json`'s (a test holds them equal). */
export const RELEASE = '0.2.0';

/** The oldest release whose open runs this release's workers run: 0.2.0 runs only its own; a later release, the one before it. */
export const OLDEST_RUN_RELEASE = '0.2.0';

/** The memo field naming the release a run began on (`<version>+<digest>`). */
export const RELEASE_MEMO = 'commonplaceRelease';

/** The release of a run that carries none: every run begun before 0.2.0, the first release to stamp its runs. */
export const UNSTAMPED_RELEASE = '0.1.0';

/** A run's memo with the field that says it begins on this release, the code's (the one stamp every start site applies). */
export function withRelease(memo: Record<string, unknown> | undefined, release: string): Record<string, unknown> {
  return { ...memo, [RELEASE_MEMO]: release };
}

/** The release a run began on, from its memo (decoded): 0.1.0 when it names none. */
export function releaseOfMemo(memo: Record<string, unknown> | undefined): string {
  const release = memo?.[RELEASE_MEMO];
  return typeof release === 'string' && release !== '' ? release : UNSTAMPED_RELEASE;
}

/** Compares two `major.minor.patch` releases by version (a pre-release suffix and the code's digest are ignored): negative when `a` is older. */
export function compareReleases(a: string, b: string): number {
  const parts = (release: string) =>
    release
      .split(/[-+]/)[0]!
      .split('.')
      .map((part) => Number(part) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Whether this release's workers run a run begun on `release`. */
export function runsRunsOf(release: string): boolean {
  return compareReleases(release, OLDEST_RUN_RELEASE) >= 0;
}

/**
 * The command that ends a run of this workflow type: `review cancel` for review runs (a gate batch through
 * its sweep or compare run, whose workflow ID is the batch's without `/batch-…`), `analysis reset` for
 * analysis runs (their run ID is the workflow ID's last part), and Temporal's own terminate for a probe or
 * a quota gate (a later run starts a new gate).
 */
export function endingCommand(workflowType: string, workflowId: string): string {
  switch (workflowType) {
    case 'analysis':
      return runCommand.analysisReset(analysisRunIdOf(workflowId));
    case 'gateBatch':
      // A compare run's batch (`compare/CMP-…/<route>/batch-N`) ends with its compare run; a sweep's with its sweep.
      return runCommand.cancel(workflowId.startsWith('compare/') ? workflowId.split('/').slice(0, 2).join('/') : withoutBatchSegment(workflowId));
    case 'gateSweep':
    case 'compareRun':
    case 'fullPass':
    case 'revise':
      return runCommand.cancel(workflowId);
    default:
      return runCommand.terminate(workflowId);
  }
}

/**
 * Why this release's workers do not run a run, in one line — the run, the release it began on and the way
 * out — or undefined when they run it.
 */
export function refusalOf(run: { workflowType: string; workflowId: string; memo: Record<string, unknown> | undefined }): string | undefined {
  const began = releaseOfMemo(run.memo);
  if (runsRunsOf(began)) return undefined;
  return (
    `run ${run.workflowId} began on release ${began}, which release ${RELEASE} does not run (its oldest is ${OLDEST_RUN_RELEASE}): ` +
    `finish it on ${began}'s workers, or end it with \`${endingCommand(run.workflowType, run.workflowId)}\``
  );
}

/** A refusal line within a longer text (a log entry, a failure's debug form), or undefined. */
export function refusalIn(text: string): string | undefined {
  return /run \S+ began on release \S+, which release \S+ does not run \(its oldest is \S+\): finish it on \S+ workers, or end it with `[^`]+`/.exec(text)?.[0];
}
