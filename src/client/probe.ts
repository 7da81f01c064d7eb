import type { Command } from 'commander';
import { resolve } from 'node:path';
import { probe, type ProbeResult } from '../workflows/probe.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../search-attributes.js';
import { connectClient } from './connection.js';
import { action } from './errors.js';
import { applicationFailure, follow } from './follow.js';

interface ProbeOptions {
  profile: string;
  profiles?: string;
  kb?: string;
  scenario?: string;
  json?: boolean;
}

/** A readable, unique workflow ID: the profile and the start time. */
export function probeWorkflowId(profile: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `probe/${profile}/${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Renders a probe's result for the operator. */
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

/** `commonplace probe`: checks a worker profile end to end through a real workflow and launch. */
export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('run one launch of a worker profile through a workflow and print what the launch activity saw')
    .requiredOption('--profile <name>', 'worker profile to probe (claude, codex, pi, fake, or one of the KB)')
    .option('--profiles <file>', 'worker profiles file (default: the KB\'s kb/instructions/worker-profiles.yaml, else the shipped one)')
    .option('--kb <dir>', 'KB checkout whose profiles apply')
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (options: ProbeOptions) => {
        const client = await connectClient();
        const workflowId = probeWorkflowId(options.profile);
        const handle = await client.workflow.start(probe, {
          taskQueue: TASK_QUEUE,
          workflowId,
          args: [
            {
              probeId: workflowId,
              profile: options.profile,
              ...(options.profiles && { profilesFile: resolve(options.profiles) }),
              ...(options.kb && { checkout: resolve(options.kb) }),
              ...(options.scenario && { env: { COMMONPLACE_FAKE_SCENARIO: resolve(options.scenario) } }),
            },
          ],
          staticSummary: `probe of worker profile ${options.profile}`,
          typedSearchAttributes: [
            { key: CommonplaceKind, value: 'probe' },
            { key: CommonplaceStatus, value: 'running' },
            { key: CommonplaceSubject, value: options.profile },
            { key: CommonplaceProfile, value: options.profile },
          ],
        });
        process.stderr.write(`started ${workflowId}; waiting for a worker (commonplace dev or commonplace worker)...\n`);
        const print = (result: ProbeResult) => (options.json ? JSON.stringify({ workflowId, ...result }, null, 2) : formatProbe(workflowId, result));
        // A launch that did not complete fails the probe (`probe-failed`) with the ProbeResult as its details: the same report, exit 2.
        await follow(handle, {
          stopped: () => '',
          result: (result) => ({ text: print(result), status: result.outcome.status === 'completed' ? 'completed' : 'exhausted' }),
          failure: (error) => {
            const result = applicationFailure(error, 'probe-failed')?.details?.[0] as ProbeResult | undefined;
            return result === undefined ? undefined : { text: print(result), exitCode: 2 };
          },
        });
      }),
    );
}
