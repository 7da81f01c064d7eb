import { ActivityTracker } from './activity.js';
import { isJsonObject, parseJsonLines, type JsonObject } from './json-stream.js';
import type { TokenUsage } from './launch-contract.js';
import type { HarnessName } from './profiles.js';
import { rateLimitInfo, type RateLimitInfo } from './rate-limit.js';

export { rateLimitInfo, type RateLimitInfo } from './rate-limit.js';
export type { TokenUsage } from './launch-contract.js';

/** What a harness said about its own run, read from its standard output. */
export interface HarnessReport {
  /** The model the harness recorded as used; undefined when it reports none (codex) or no request succeeded. */
  model?: string;
  usage?: TokenUsage;
  costUsd?: number;
  /** The final text the harness printed as its answer or error, where it has one. */
  resultText?: string;
  /** An error the harness reported in its structured output: the run failed, whatever its exit code. */
  errorText?: string;
  /** The last rate-limit state the harness reported (claude stream-json `rate_limit_event`). */
  rateLimit?: RateLimitInfo;
  /** The last `allowed_warning`: a window nearly used up. */
  rateLimitWarning?: RateLimitInfo;
  turns?: number;
  toolUses?: number;
}

type Json = JsonObject;
const isObject = isJsonObject;
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** claude's output in any of its formats: one `json` result object, a `--verbose` `json` array, or stream-json lines. */
function claudeEvents(stdout: string): Json[] {
  const trimmed = stdout.trim();
  if (trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (Array.isArray(value)) return value.filter(isObject);
    } catch {
      // Not one array: read it as lines.
    }
  }
  return parseJsonLines(stdout);
}

/** claude prints a final result object (alone, or last of its stream); modelUsage names the models with their cost. */
function claudeReport(stdout: string): HarnessReport {
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
  const activity = tracker.snapshot();
  if (activity.rateLimitWarning) report.rateLimitWarning = activity.rateLimitWarning;
  if (activity.turns > 0) {
    report.turns = activity.turns;
    report.toolUses = activity.toolUses;
  }
  const result = [...events].reverse().find((event) => event.type === 'result');
  if (!result) return report;
  const modelUsage = isObject(result.modelUsage) ? result.modelUsage : {};
  const ranked = Object.entries(modelUsage)
    .filter((entry): entry is [string, Json] => isObject(entry[1]))
    .sort((a, b) => (num(b[1].costUSD) ?? 0) - (num(a[1].costUSD) ?? 0) || (num(b[1].outputTokens) ?? 0) - (num(a[1].outputTokens) ?? 0));
  if (ranked[0]) report.model = ranked[0][0];
  const usage = isObject(result.usage) ? result.usage : undefined;
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

/** codex exec --json prints JSONL events; usage arrives per turn and no event names the model. */
function codexReport(stdout: string): HarnessReport {
  const report: HarnessReport = {};
  let usage: TokenUsage | undefined;
  const tracker = new ActivityTracker('codex');
  for (const event of parseJsonLines(stdout)) {
    tracker.observe(event);
    const type = str(event.type);
    if (type === 'turn.completed' && isObject(event.usage)) {
      usage ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 };
      usage.inputTokens += num(event.usage.input_tokens) ?? 0;
      usage.outputTokens += num(event.usage.output_tokens) ?? 0;
      usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + (num(event.usage.cached_input_tokens) ?? 0);
    } else if (type === 'item.completed' && isObject(event.item) && event.item.type === 'agent_message') {
      const text = str(event.item.text);
      if (text !== undefined) report.resultText = text;
    } else if (type === 'turn.failed') {
      // Top-level `error` events also carry passing notices ("Reconnecting... 2/5"); only turn.failed fails the run.
      report.errorText = (isObject(event.error) ? str(event.error.message) : undefined) ?? JSON.stringify(event);
    }
  }
  if (usage) report.usage = usage;
  const activity = tracker.snapshot();
  if (activity.turns > 0) {
    report.turns = activity.turns;
    report.toolUses = activity.toolUses;
  }
  return report;
}

/**
 * pi --mode json prints JSONL events; each assistant message_end carries its model, usage and cost.
 * A provider error is an assistant message with stopReason "error": the model is taken only from
 * messages that are not, and the run failed when its last assistant message is one.
 */
function piReport(stdout: string): HarnessReport {
  const report: HarnessReport = {};
  let usage: TokenUsage | undefined;
  let cost: number | undefined;
  const tracker = new ActivityTracker('pi');
  for (const event of parseJsonLines(stdout)) {
    tracker.observe(event);
    if (event.type !== 'message_end' || !isObject(event.message) || event.message.role !== 'assistant') continue;
    const message = event.message;
    const failed = message.stopReason === 'error' || message.stopReason === 'aborted';
    const model = str(message.responseModel) ?? str(message.model);
    if (model && !failed) report.model = model;
    if (isObject(message.usage)) {
      usage ??= { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      usage.inputTokens += num(message.usage.input) ?? 0;
      usage.outputTokens += num(message.usage.output) ?? 0;
      usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + (num(message.usage.cacheRead) ?? 0);
      usage.cacheWriteTokens = (usage.cacheWriteTokens ?? 0) + (num(message.usage.cacheWrite) ?? 0);
      const messageCost = isObject(message.usage.cost) ? num(message.usage.cost.total) : undefined;
      if (messageCost !== undefined) cost = (cost ?? 0) + messageCost;
    }
    if (Array.isArray(message.content)) {
      const text = message.content
        .filter((part): part is Json => isObject(part) && part.type === 'text')
        .map((part) => str(part.text) ?? '')
        .join('');
      if (text) report.resultText = text;
    }
    if (failed) report.errorText = str(message.errorMessage) ?? `stopReason ${String(message.stopReason)}`;
    else delete report.errorText;
  }
  if (usage) report.usage = usage;
  if (cost !== undefined) report.costUsd = cost;
  const activity = tracker.snapshot();
  if (activity.turns > 0) {
    report.turns = activity.turns;
    report.toolUses = activity.toolUses;
  }
  return report;
}

/** The fake harness prints one line {"type":"fake-result", model, usage, cost_usd}, or plays another harness's output. */
function fakeReport(stdout: string): HarnessReport {
  const line = parseJsonLines(stdout).reverse().find((event) => event.type === 'fake-result');
  if (!line) return {};
  const report: HarnessReport = {};
  const model = str(line.model);
  if (model) report.model = model;
  if (isObject(line.usage)) {
    report.usage = { inputTokens: num(line.usage.input_tokens) ?? 0, outputTokens: num(line.usage.output_tokens) ?? 0 };
  }
  const cost = num(line.cost_usd);
  if (cost !== undefined) report.costUsd = cost;
  return report;
}

/** Reads a harness's standard output in that harness's own format. */
export function readHarnessReport(harness: HarnessName, stdout: string): HarnessReport {
  switch (harness) {
    case 'claude':
      return claudeReport(stdout);
    case 'codex':
      return codexReport(stdout);
    case 'pi':
      return piReport(stdout);
    case 'fake':
      return fakeReport(stdout);
  }
}

const usageLimitPatterns: Record<HarnessName, RegExp[]> = {
  claude: [
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
  codex: [/hit your usage limit/i, /usage_limit_reached/i, /usage limit/i, /usage_not_included/i, /insufficient_quota/i],
  pi: [/usage limit/i, /rate_limit_error/i, /you['’]ve hit your (?:usage )?limit/i, /\b429\b.*(?:rate|limit|quota)/i, /quota exceeded|resource_exhausted/i, /insufficient_quota/i, /credit balance is too low/i],
  fake: [/usage limit reached/i, /you['’]ve hit your (?:usage )?limit/i, /hit your usage limit/i],
};

/** An answer longer than this is a document, not a limit notice, even if it mentions one. */
const maxNoticeLength = 600;

/**
 * Finds a usage-limit notice in what a harness printed. Claude has been seen to report one as a
 * `success` result with exit 0, so its result text is searched too, but only when it is short.
 */
export function findUsageLimit(harness: HarnessName, stdout: string, stderr: string, report: HarnessReport): string | undefined {
  const candidates: string[] = [];
  if (report.errorText) candidates.push(report.errorText);
  if (report.resultText !== undefined && report.resultText.trim().length <= maxNoticeLength) candidates.push(report.resultText);
  if (stderr.trim()) candidates.push(stderr.trim().slice(-4000));
  const structured = report.model !== undefined || report.usage !== undefined || report.resultText !== undefined;
  if (!structured && stdout.trim().length <= 4 * maxNoticeLength) candidates.push(stdout.trim());
  if (harness !== 'claude' && harness !== 'fake') {
    // codex and pi report errors as JSON events; search those lines, never the model's own text.
    for (const line of stdout.split('\n')) if (/"type"\s*:\s*"(error|turn\.failed)"/.test(line)) candidates.push(line);
  }
  for (const text of candidates) {
    if (usageLimitPatterns[harness].some((pattern) => pattern.test(text))) return text.trim();
  }
  return undefined;
}
