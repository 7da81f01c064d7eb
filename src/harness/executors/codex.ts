/** codex as an executor: `codex exec --json` in a workspace-write sandbox, the prompt from stdin (`-`). */
import { ActivityTracker } from '../activity.js';
import type { CliExecutor } from '../executor.js';
import { isJsonObject, num, parseJsonLines, str } from '../json-stream.js';
import type { Profile } from '../profiles.js';
import type { HarnessReport, TokenUsage } from '../report.js';

/** The name codex gets for the provider a profile's `base-url` defines (codex refuses to override its built-in `openai`). */
export const codexProviderName = 'commonplace';

/** codex `-c` overrides: with a `base-url`, a provider of our own whose own retries can be set (the built-in one's cannot). */
function codexConfig(profile: Profile): string[] {
  if (profile.baseUrl === undefined) return [];
  const retries = profile.cliRetries ?? 0;
  const provider = [
    `name=${JSON.stringify(codexProviderName)}`,
    `base_url=${JSON.stringify(profile.baseUrl)}`,
    'wire_api="responses"',
    'env_key="OPENAI_API_KEY"',
    `request_max_retries=${retries}`,
    `stream_max_retries=${retries}`,
  ];
  return ['-c', `model_provider=${JSON.stringify(codexProviderName)}`, '-c', `model_providers.${codexProviderName}={${provider.join(',')}}`];
}

/** codex exec --json prints JSONL events; usage arrives per turn and no event names the model. */
export function codexReport(stdout: string): HarnessReport {
  const report: HarnessReport = {};
  let usage: TokenUsage | undefined;
  const tracker = new ActivityTracker('codex');
  for (const event of parseJsonLines(stdout)) {
    tracker.observe(event);
    const type = str(event.type);
    if (type === 'turn.completed' && isJsonObject(event.usage)) {
      usage ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 };
      usage.inputTokens += num(event.usage.input_tokens) ?? 0;
      usage.outputTokens += num(event.usage.output_tokens) ?? 0;
      usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + (num(event.usage.cached_input_tokens) ?? 0);
    } else if (type === 'item.completed' && isJsonObject(event.item) && event.item.type === 'agent_message') {
      const text = str(event.item.text);
      if (text !== undefined) report.resultText = text;
    } else if (type === 'turn.failed') {
      // Top-level `error` events also carry passing notices ("Reconnecting... 2/5"); only turn.failed fails the run.
      report.errorText = (isJsonObject(event.error) ? str(event.error.message) : undefined) ?? JSON.stringify(event);
    }
  }
  if (usage) report.usage = usage;
  tracker.recordTurns(report);
  return report;
}

export const codex: CliExecutor = {
  kind: 'cli',
  name: 'codex',
  cli: 'codex',
  install: 'npm install -g @openai/codex, then log in with `codex login`',
  defaultCommand: () => 'codex',
  commandLine: (profile) => ({
    file: profile.command ?? 'codex',
    args: [
      'exec',
      '--json',
      '--sandbox',
      'workspace-write',
      '--skip-git-repo-check',
      ...codexConfig(profile),
      ...(profile.model === undefined ? [] : ['--model', profile.model]),
      ...profile.flags,
      '-',
    ],
  }),
  env: () => ({}),
  dialect: 'codex',
  report: codexReport,
  usageLimitPatterns: [/hit your usage limit/i, /usage_limit_reached/i, /usage limit/i, /usage_not_included/i, /insufficient_quota/i],
  errorEvents: true,
};
