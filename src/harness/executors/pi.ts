/** pi as an executor: `pi -p --mode json`, with a per-launch agent directory for its endpoint and retry settings. */
import { join } from 'node:path';
import { ActivityTracker } from '../activity.js';
import type { CliExecutor } from '../executor.js';
import { isJsonObject, num, parseJsonLines, str, type JsonObject } from '../json-stream.js';
import { preparePiAgentDir } from '../launch-env.js';
import type { HarnessReport, TokenUsage } from '../report.js';

/** Each assistant message_end carries its model, usage and cost; a provider error (stopReason "error") gives no model, and fails the run when last. */
export function piReport(stdout: string): HarnessReport {
  const report: HarnessReport = {};
  let usage: TokenUsage | undefined;
  let cost: number | undefined;
  const tracker = new ActivityTracker('pi');
  for (const event of parseJsonLines(stdout)) {
    tracker.observe(event);
    if (event.type !== 'message_end' || !isJsonObject(event.message) || event.message.role !== 'assistant') continue;
    const message = event.message;
    const failed = message.stopReason === 'error' || message.stopReason === 'aborted';
    const model = str(message.responseModel) ?? str(message.model);
    if (model && !failed) report.model = model;
    if (isJsonObject(message.usage)) {
      usage ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      usage.inputTokens += num(message.usage.input) ?? 0;
      usage.outputTokens += num(message.usage.output) ?? 0;
      usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + (num(message.usage.cacheRead) ?? 0);
      usage.cacheWriteTokens = (usage.cacheWriteTokens ?? 0) + (num(message.usage.cacheWrite) ?? 0);
      const messageCost = isJsonObject(message.usage.cost) ? num(message.usage.cost.total) : undefined;
      if (messageCost !== undefined) cost = (cost ?? 0) + messageCost;
    }
    if (Array.isArray(message.content)) {
      const text = message.content
        .filter((part): part is JsonObject => isJsonObject(part) && part.type === 'text')
        .map((part) => str(part.text) ?? '')
        .join('');
      if (text) report.resultText = text;
    }
    if (failed) report.errorText = str(message.errorMessage) ?? `stopReason ${String(message.stopReason)}`;
    else delete report.errorText;
  }
  if (usage) report.usage = usage;
  if (cost !== undefined) report.costUsd = cost;
  tracker.recordTurns(report);
  return report;
}

export const pi: CliExecutor = {
  kind: 'cli',
  name: 'pi',
  cli: 'pi',
  install: "npm install -g @mariozechner/pi-coding-agent, and set the provider's API key",
  defaultCommand: () => 'pi',
  commandLine: (profile) => ({
    file: profile.command ?? 'pi',
    args: [
      '-p',
      '--mode',
      'json',
      '--no-session',
      ...(profile.provider === undefined ? [] : ['--provider', profile.provider]),
      ...(profile.model === undefined ? [] : ['--model', profile.model]),
      ...(profile.tools === undefined ? [] : profile.tools.length === 0 ? ['--no-tools'] : ['--tools', profile.tools.join(',')]),
      ...profile.flags,
    ],
  }),
  env: () => ({}),
  // pi has no flags for its endpoint or retries, only its agent directory: one per launch.
  prepare: async (profile, { dir, stateDir, processEnv }) => ({
    PI_CODING_AGENT_DIR: await preparePiAgentDir(profile, join(dir, stateDir, 'pi-agent'), { ...processEnv, ...profile.env }),
  }),
  dialect: 'pi',
  report: piReport,
  usageLimitPatterns: [
    /usage limit/i,
    /rate_limit_error/i,
    /you['’]ve hit your (?:usage )?limit/i,
    /\b429\b.*(?:rate|limit|quota)/i,
    /quota exceeded|resource_exhausted/i,
    /insufficient_quota/i,
    /credit balance is too low/i,
  ],
  errorEvents: true,
};
