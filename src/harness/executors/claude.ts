/** claude (Claude Code) as an executor: `claude -p` with stream-json output, a permission mode and a tool allowlist. */
import { ActivityTracker } from '../activity.js';
import type { CliExecutor } from '../executor.js';
import { isJsonObject, num, parseJsonLines, str, type JsonObject } from '../json-stream.js';
import type { Profile } from '../profiles.js';
import { rateLimitInfo } from '../rate-limit.js';
import type { HarnessReport } from '../report.js';

const defaultClaudeTools = ['Read', 'Write', 'Edit', 'Glob', 'Grep'];

/** The tools claude offers at all: the profile's `tools`, else the tool names of its permission rules (`Bash(node *)` is Bash). */
export function claudeTools(profile: Profile): string[] {
  if (profile.tools) return profile.tools;
  const names = (profile.allowedTools ?? defaultClaudeTools).map((rule) => rule.replace(/\(.*$/, '').trim()).filter(Boolean);
  return [...new Set(names)];
}

/** claude's output in any of its formats: one `json` result object, a `--verbose` `json` array, or stream-json lines. */
function claudeEvents(stdout: string): JsonObject[] {
  const trimmed = stdout.trim();
  if (trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (Array.isArray(value)) return value.filter(isJsonObject);
    } catch {
      // Not one array: read it as lines.
    }
  }
  return parseJsonLines(stdout);
}

/** claude prints a final result object (alone, or last of its stream); modelUsage names the models with their cost. */
export function claudeReport(stdout: string): HarnessReport {
  const events = claudeEvents(stdout);
  const report: HarnessReport = {};
  const tracker = new ActivityTracker('claude');
  for (const event of events) {
    tracker.observe(event);
    if (event.type === 'rate_limit_event') {
      const info = rateLimitInfo(event.rate_limit_info);
      if (info) report.rateLimit = info;
    }
  }
  const { rateLimitWarning } = tracker.snapshot();
  if (rateLimitWarning) report.rateLimitWarning = rateLimitWarning;
  tracker.recordTurns(report);
  const result = [...events].reverse().find((event) => event.type === 'result');
  if (!result) return report;
  const modelUsage = isJsonObject(result.modelUsage) ? result.modelUsage : {};
  const ranked = Object.entries(modelUsage)
    .filter((entry): entry is [string, JsonObject] => isJsonObject(entry[1]))
    .sort((a, b) => (num(b[1].costUSD) ?? 0) - (num(a[1].costUSD) ?? 0) || (num(b[1].outputTokens) ?? 0) - (num(a[1].outputTokens) ?? 0));
  if (ranked[0]) report.model = ranked[0][0];
  const usage = isJsonObject(result.usage) ? result.usage : undefined;
  if (usage) {
    report.usage = {
      inputTokens: num(usage.input_tokens) ?? 0,
      outputTokens: num(usage.output_tokens) ?? 0,
      ...(num(usage.cache_read_input_tokens) !== undefined && { cacheReadTokens: num(usage.cache_read_input_tokens) }),
      ...(num(usage.cache_creation_input_tokens) !== undefined && { cacheWriteTokens: num(usage.cache_creation_input_tokens) }),
    };
  }
  const cost = num(result.total_cost_usd) ?? num(result.cost_usd);
  if (cost !== undefined) report.costUsd = cost;
  const text = str(result.result);
  if (text !== undefined) report.resultText = text;
  if (result.is_error === true || (typeof result.subtype === 'string' && result.subtype.startsWith('error'))) {
    const errors = Array.isArray(result.errors) ? result.errors.filter((error): error is string => typeof error === 'string') : [];
    report.errorText = text ?? (errors.length > 0 ? `${str(result.subtype) ?? 'error'}: ${errors.join('; ')}` : str(result.subtype)) ?? 'error';
  }
  return report;
}

export const claude: CliExecutor = {
  kind: 'cli',
  name: 'claude',
  cli: 'claude',
  install: 'npm install -g @anthropic-ai/claude-code, then log in with `claude` once',
  defaultCommand: () => 'claude',
  commandLine: (profile, _fakeHarnessPath, files) => ({
    file: profile.command ?? 'claude',
    args: [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      profile.permissionMode ?? 'acceptEdits',
      '--allowedTools',
      (profile.allowedTools ?? defaultClaudeTools).join(','),
      '--tools',
      claudeTools(profile).join(','),
      ...(files.startupFile === undefined ? [] : ['--append-system-prompt-file', files.startupFile]),
      ...(profile.model === undefined ? [] : ['--model', profile.model]),
      ...profile.flags,
    ],
  }),
  env: (profile) => ({
    CLAUDE_CODE_MAX_RETRIES: String(profile.cliRetries ?? 0),
    ...(profile.baseUrl !== undefined && { ANTHROPIC_BASE_URL: profile.baseUrl }),
  }),
  dialect: 'claude',
  report: claudeReport,
  usageLimitPatterns: [
    /usage limit reached/i,
    /limit reached\s*[∙·•|-]\s*resets/i,
    /you['’]ve hit your (?:usage |session |weekly |opus |sonnet |fable 5 )?limit/i,
    // The monthly credit headless use draws from, and organisation spend limits.
    /you['’]ve hit your (?:org['’]s )?monthly spend limit/i,
    /you['’]re out of (?:usage )?credits/i,
    /your org is out of usage/i,
    /credit balance is too low/i,
    /rate_limit_error/i,
    /\(429\).*rate limit/i,
    /API Error: Rate limit reached/i,
  ],
  errorEvents: false,
};
