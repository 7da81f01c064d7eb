import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkLaunchInputs } from '../shared/input-checks.js';
import { probe, type ProbeResult } from '../../workflows/probe.js';
import { startingAttributes, TASK_QUEUE } from '../../search-attributes.js';
import { connectClient } from '../shared/connection.js';
import { requireSearchAttributes } from '../shared/preflight.js';
import { UserError } from '../shared/errors.js';
import { portable, tokensOf, warnUnheld } from '../shared/checkout.js';
import { follow } from '../shared/follow.js';
import { applicationFailure } from '../shared/run-errors.js';
import { markdownText, runDetails } from '../../runs/run-details.js';
import { probeWorkflowId } from '../../runs/workflow-ids.js';

export interface ProbeOptions {
  profile: string;
  profiles?: string;
  kb?: string;
  scenario?: string;
  json?: boolean;
}

export function formatProbe(workflowId: string, result: ProbeResult): string {
  const { outcome } = result;
  const lines = [`probe ${workflowId}: profile ${result.profile} (${result.harness}) — ${outcome.status}`];
  if ('result' in outcome) {
    const launch = outcome.result;
    lines.push(
      `  exit code ${launch.exitCode ?? '-'}${launch.timedOut ? ' (timed out)' : ''}, ${launch.durationMs} ms, try ${launch.try}`,
      `  model ${launch.model ?? 'not reported'}${launch.modelSource === 'profile' ? ' (from the profile; the harness reports none)' : ''}`,
      `  tokens ${launch.usage ? `${launch.usage.inputTokens} in / ${launch.usage.outputTokens} out` : 'not reported'}, cost ${launch.costUsd === null ? 'not reported' : `$${launch.costUsd.toFixed(4)}`}`,
    );
    for (const output of launch.outputs) lines.push(`  output ${output.path}: ${output.size} bytes, sha256 ${output.sha256}`);
    for (const missing of launch.missing) lines.push(`  output ${missing}: missing`);
    lines.push(`  launch directory ${result.dir}`);
  } else {
    lines.push(`  ${outcome.reason}`);
    if (outcome.status === 'usage-limit' && outcome.resetAt) lines.push(`  the limit resets at ${outcome.resetAt}`);
  }
  return lines.join('\n');
}

/** Or the one-line error naming the flag. */
function existingFile(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const file = resolve(value);
  if (!existsSync(file)) throw new UserError(`${flag} ${value}: no such file or directory`);
  return file;
}

/** Starts the probe workflow and follows it to its report. */
export async function runProbe(options: ProbeOptions): Promise<void> {
  const profilesFile = existingFile(options.profiles, '--profiles');
  const checkout = existingFile(options.kb, '--kb');
  const scenario = existingFile(options.scenario, '--scenario');
  // The profile resolves here, in the file the worker will read, before anything starts: no failed probe is left behind.
  checkLaunchInputs({ profile: options.profile, ...(checkout && { checkout }), ...(profilesFile && { profilesFile }) });
  const client = await connectClient();
  await requireSearchAttributes(client);
  const workflowId = probeWorkflowId(options.profile, new Date(), Math.random().toString(36).slice(2, 6));
  const given = {
    probeId: workflowId,
    profile: options.profile,
    ...(profilesFile && { profilesFile }),
    ...(checkout && { checkout }),
    ...(scenario && { env: { COMMONPLACE_FAKE_SCENARIO: scenario } }),
  };
  // A probe of a KB's profiles reads them on a worker that holds the checkout, named by its ID.
  if (checkout) await warnUnheld(client, checkout);
  const handle = await client.workflow.start(probe, {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [checkout ? await portable(given, checkout) : given],
    staticSummary: markdownText(`probe of worker profile ${options.profile}`),
    // The details name the checkout, the profiles and the scenario from their places, as the input does: no host path in the history.
    staticDetails: runDetails(
      `probe of worker profile ${options.profile}`,
      tokensOf([
        ['profile', options.profile],
        ['profiles file', profilesFile],
        ['checkout', checkout],
        ['fake scenario', scenario],
      ] as const),
    ),
    typedSearchAttributes: startingAttributes('probe', options.profile, options.profile),
  });
  process.stderr.write(`started ${workflowId}; waiting for a worker (commonplace dev or commonplace worker)...\n`);
  // A launch that did not complete fails the probe (`probe-failed`) with the ProbeResult as its details: the same report, exit 2.
  await follow(handle, {
    stopped: () => '',
    result: (result) => ({ text: formatProbe(workflowId, result), status: result.outcome.status === 'completed' ? 'completed' : 'exhausted' }),
    failure: (error) => {
      const result = applicationFailure(error, 'probe-failed')?.details?.[0] as ProbeResult | undefined;
      return result === undefined ? undefined : { text: formatProbe(workflowId, result), exitCode: 2, json: result };
    },
    ...(options.json && { json: true }),
  });
}
