/** The action of `commonplace upgrade check`: the open runs and recorded histories replayed on one workflow bundle. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { loadWorkflowBundle } from '../../workflow-bundle.js';
import { workflowInterceptorModules, workflowsPath } from '../../workflow-code.js';
import { connectClient, connectionSettings } from '../shared/connection.js';
import { debugEnabled, UserError } from '../shared/errors.js';
import { printJson } from '../shared/json-output.js';
import { flag, parseOptions } from '../shared/options.js';
import {
  replayOpenRuns,
  replayRecorded,
  schedulesBeforeBoundary,
  type OtherCode,
  type ReplayFailure,
  type ReplayReport,
  type ScheduleBeforeBoundary,
  type WorkflowCode,
} from './upgrade-replay.js';

export interface UpgradeCheckOptions {
  bundle?: string;
  histories?: string;
  openRuns?: boolean;
  json?: boolean;
}

const optionsSchema = z.object({
  bundle: z
    .string()
    .optional()
    .transform((file, context) => {
      if (file === undefined) return undefined;
      if (existsSync(file)) return resolve(file);
      context.addIssue({ code: 'custom', message: `--bundle ${file}: no such file (a workflow bundle, as \`npm run build\` writes dist/workflow-bundle.js)` });
      return z.NEVER;
    }),
  histories: z.string().optional(),
  openRuns: z.boolean().default(true),
  json: flag,
});

/** Progress on stderr when there are many runs: one line per 25 replayed, and the last. */
function progress(what: string): (done: number, total: number) => void {
  return (done, total) => {
    if (total >= 25 && (done % 25 === 0 || done === total)) process.stderr.write(`replayed ${done} of ${total} ${what}\n`);
  };
}

/** The release a bundle's manifest beside it names (`npm run build` writes both), or undefined. */
function releaseBeside(bundle: string): string | undefined {
  try {
    const { release } = JSON.parse(readFileSync(join(dirname(bundle), 'workflow-bundle.json'), 'utf8')) as { release?: unknown };
    return typeof release === 'string' ? release : undefined;
  } catch {
    return undefined;
  }
}

/** Which workflow code is checked, and its release: the bundle named, else what a worker started now would run. */
async function codeToCheck(
  bundle: string | undefined,
  given: string | undefined,
): Promise<{ code: WorkflowCode; release: string | undefined; described: string }> {
  if (bundle !== undefined) {
    const release = releaseBeside(bundle);
    return {
      code: { codePath: bundle },
      release,
      described: `the workflow bundle ${given ?? bundle}, release ${release ?? 'unknown (no manifest beside it names one)'}`,
    };
  }
  const loaded = await loadWorkflowBundle({ workflowsPath, workflowInterceptorModules }, (because) =>
    process.stderr.write(`${because}; bundling the workflow code to check...\n`),
  );
  const shown = 'codePath' in loaded.workflowBundle ? relative(process.cwd(), loaded.workflowBundle.codePath) || loaded.workflowBundle.codePath : undefined;
  return {
    code: loaded.workflowBundle,
    release: loaded.release,
    described: `the installed workflow code (${shown ?? `bundled from ${relative(process.cwd(), workflowsPath) || workflowsPath}`}), release ${loaded.release}`,
  };
}

/** The open runs begun on other code, in one line, or undefined when there are none. */
function otherCodeLine(otherCode: OtherCode, release: string | undefined): string | undefined {
  if (otherCode.length === 0) return undefined;
  const runs = otherCode.reduce((sum, each) => sum + each.runs, 0);
  const releases = otherCode.map((each) => `${each.release} (${each.runs})`).join(', ');
  return `  ${runs} open run${runs === 1 ? '' : 's'} began on ${release === undefined ? 'the releases' : 'other code'}: ${releases}`;
}

function failureLine(failure: ReplayFailure): string {
  // A refused run: the line its workers refuse it in, which names it and its release (only one run of a workflow ID is open).
  if (failure.release !== undefined) return `  ${failure.kind === 'open' ? '' : `${failure.file}: `}${failure.mismatch}`;
  const which =
    failure.kind === 'open'
      ? `${failure.workflowId} (run ${failure.runId}, began on ${failure.began})`
      : `${failure.file} (${failure.workflowId}, began on ${failure.began})`;
  return `  would not replay: ${which}: ${failure.mismatch}`;
}

/** Replays, prints the outcome, and sets exit code 1 when a history would not replay. */
export async function runUpgradeCheck(raw: UpgradeCheckOptions): Promise<void> {
  const options = parseOptions(optionsSchema, raw);
  if (!options.openRuns && options.histories === undefined)
    throw new UserError('--no-open-runs leaves nothing to check: name recorded histories with --histories DIR');
  // A history that does not replay fails its replayed workflow task, which the SDK's core logs as a warning: the
  // report below names it in one line, so only errors are logged (everything with --debug).
  const level = debugEnabled() ? 'DEBUG' : 'ERROR';
  Runtime.install({ logger: new DefaultLogger(level), telemetryOptions: { logging: { filter: { core: level, other: level } } } });
  const { code, release, described } = await codeToCheck(options.bundle, raw.bundle);
  // The installed code is this release: a run begun on a release it does not run is named from its memo, before any replay.
  const boundary = options.bundle === undefined;
  const empty: ReplayReport = { checked: 0, failures: [] };
  let namespace: string | undefined;
  let open: ReplayReport & { otherCode?: OtherCode } = empty;
  let schedules: ScheduleBeforeBoundary[] = [];
  if (options.openRuns) {
    const client = await connectClient();
    namespace = connectionSettings().namespace;
    // The project's workflow types, as the installed code exports them: runs of other applications on the namespace are not ours to check.
    const workflowTypes = Object.keys(await import('../../workflows/index.js'));
    open = await replayOpenRuns(client, { bundle: code, release }, workflowTypes, progress('open runs'), boundary);
    if (boundary) schedules = await schedulesBeforeBoundary(client, workflowTypes);
  }
  const recorded = options.histories !== undefined ? await replayRecorded(options.histories, code, progress('recorded histories'), boundary) : empty;
  const failures = [...open.failures, ...recorded.failures];
  if (options.json) {
    printJson('upgrade-check', 1, {
      code: options.bundle ?? ('codePath' in code ? code.codePath : null),
      release: release ?? null,
      ...(namespace !== undefined && { namespace }),
      openRuns: options.openRuns ? open.checked : null,
      ...(open.otherCode !== undefined && { otherCode: open.otherCode }),
      recordedHistories: options.histories !== undefined ? recorded.checked : null,
      replays: failures.length === 0,
      failures,
      ...(options.openRuns && boundary && { schedules }),
    });
  } else {
    const parts = [
      options.openRuns ? `${open.checked} open run${open.checked === 1 ? '' : 's'} on namespace ${namespace}` : undefined,
      options.histories !== undefined ? `${recorded.checked} recorded histor${recorded.checked === 1 ? 'y' : 'ies'} under ${options.histories}` : undefined,
    ].filter(Boolean);
    const lines = [
      `replayed ${parts.join(' and ')} against ${described}`,
      ...[otherCodeLine(open.otherCode ?? [], release)].filter((line) => line !== undefined),
      ...failures.map(failureLine),
      ...schedules.map((schedule) => `  ${schedule.line}`),
    ];
    const recreate =
      schedules.length === 0
        ? undefined
        : `${schedules.length} schedule${schedules.length === 1 ? '' : 's'} of an older release to create again before workers restart on this code`;
    if (failures.length === 0) lines.push(recreate ?? 'every history replays: workers can restart on this code');
    else {
      const refused = failures.some((failure) => failure.release !== undefined) ? ', or end each refused run with the command its line names' : '';
      lines.push(
        `${failures.length} would not replay: restart no worker on this code until those runs end (docs/upgrading.md says how to drain them${refused})${recreate === undefined ? '' : `; ${recreate}`}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  // A schedule of an older release strands every run it starts once the workers restart: as much a reason to wait.
  if (failures.length > 0 || schedules.length > 0) process.exitCode = 1;
}
