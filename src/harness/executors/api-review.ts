/**
 * One review request on a model API (`answerReview`), shared by the executors (`anthropic.ts`,
 * `openai.ts`): each hands in only its SDK's call and how to read its answer; the answer is checked
 * and written as the review file a CLI launch writes, in the result-line form.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../fs/atomic.js';
import type { AnswerContext, ExecutorAnswer } from '../executor.js';
import type { BilledTry, LaunchExitDetails, LaunchInput } from '../launch-contract.js';
import { launchCost } from '../prices.js';
import type { Profile } from '../profiles.js';
import type { HarnessReport, RateLimitInfo, TokenUsage } from '../report.js';
import { rateLimitWarningFromHeaders, resetFromHeaders } from './api-limits.js';
import { answerTools, criterionToolName, MAX_FINDING_CHARS, MAX_FINDINGS, reviewRequest, type ReviewRequest } from './api-request.js';

const answerSchema = z
  .object({
    reviews: z.array(
      z
        .object({
          criterion: z.string(),
          verdict: z.enum(['pass', 'warn', 'fail', 'report']),
          findings: z.array(z.string().max(MAX_FINDING_CHARS)).max(MAX_FINDINGS),
        })
        .strict(),
    ),
  })
  .strict();

type ReviewAnswer = z.infer<typeof answerSchema>;

/** A failed try, relaunched by the relaunch rule, with what the provider billed for it when it answered. */
function launchExit(input: LaunchInput, logDir: string, why: string, billed?: BilledTry): ApplicationFailure {
  const details: LaunchExitDetails = {
    exitCode: null,
    stderrTail: '',
    setAside: [],
    logDir,
    harnessError: why.slice(0, 2000),
    ...(billed && { billed: [billed] }),
  };
  const message = `launch ${input.launchId}: ${input.profile.harness} ${why.split('\n')[0]?.slice(0, 200)}`;
  return ApplicationFailure.create({ type: 'launch-exit', message, details: [details] });
}

/** One finding as one list line: no line of it can read as a heading, a fence or a result line. */
const findingLine = (finding: string) => `- ${finding.replace(/\s+/g, ' ').trim()}`;

function reviewBody(entry: ReviewAnswer['reviews'][number]): string {
  const findings = entry.findings.map((finding) => finding.trim()).filter((finding) => finding.length > 0);
  return [...(findings.length > 0 ? findings.map(findingLine) : ['- No findings.']), '', `Result: ${entry.verdict}`].join('\n');
}

/** Checks a structured answer in code: one entry per criterion, in order, each verdict allowed. Returns why not, or the answer. */
export function checkAnswer(value: unknown, request: ReviewRequest): { ok: true; answer: ReviewAnswer } | { ok: false; why: string } {
  const malformed = (why: string) => ({ ok: false as const, why: `a malformed structured answer: ${why}` });
  const parsed = answerSchema.safeParse(value);
  if (!parsed.success) return malformed(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`).join('; '));
  const given = parsed.data.reviews.map((entry) => entry.criterion);
  const expected = request.criteria.map((criterion) => criterion.id);
  if (given.join('\n') !== expected.join('\n')) return malformed(`it reviews ${given.join(', ') || 'nothing'}, not ${expected.join(', ')}`);
  const refused = parsed.data.reviews.find((entry) => !request.outcomes.includes(entry.verdict));
  if (refused) return malformed(`verdict ${refused.verdict} for ${refused.criterion} (allowed: ${request.outcomes.join(', ')})`);
  const padded = parsed.data.reviews.find((entry) => entry.verdict === 'pass' && entry.findings.some((finding) => finding.trim() !== ''));
  if (padded) return malformed(`${padded.criterion} passes with findings (a pass carries none)`);
  return { ok: true, answer: parsed.data };
}

interface ToolCall {
  name: string;
  input: unknown;
}

/** The tool calls of an Anthropic message's `tool_use` blocks: what its answer value is. */
export const toolCallsOf = (content: readonly { type: string; name?: string; input?: unknown }[]): ToolCall[] =>
  content.flatMap((block) => (block.type === 'tool_use' ? [{ name: String(block.name), input: block.input }] : []));

/** Checks an Anthropic answer: exactly the forced tool was called, then its input as any answer is checked. */
export function checkToolCalls(value: unknown, request: ReviewRequest): ReturnType<typeof checkAnswer> {
  const calls = Array.isArray(value) ? (value as ToolCall[]) : [];
  const { forced } = answerTools(request);
  const named = (name: string) => {
    const criterion = request.noteTools?.find((tool) => criterionToolName(tool.id) === name);
    return criterion ? `${name} (criterion ${criterion.id})` : name;
  };
  const other = calls.find((call) => call.name !== forced);
  if (other) return { ok: false, why: `a malformed structured answer: it answers through ${named(other.name)}, not ${named(forced)}` };
  const call = calls.find((each) => each.name === forced);
  if (!call) return { ok: false, why: `a malformed structured answer: no ${named(forced)} tool call` };
  return checkAnswer(call.input, request);
}

/** The review file in the form a CLI launch writes: a pair's text ends in its result line; a bundle has a `## <id>` section per criterion. */
export function reviewText(request: ReviewRequest, answer: ReviewAnswer): string {
  if (request.grouping === 'pair') return `${reviewBody(answer.reviews[0]!)}\n`;
  return `${answer.reviews.map((entry) => `## ${entry.criterion}\n\n${reviewBody(entry)}`).join('\n\n')}\n`;
}

/** Checks the answer and writes the review file the launch declares; a malformed answer is a failed try (relaunched), billed all the same. */
export async function writeReview(input: LaunchInput, logDir: string, request: ReviewRequest, value: unknown, report: HarnessReport): Promise<ExecutorAnswer> {
  const checked = input.profile.harness === 'anthropic' ? checkToolCalls(value, request) : checkAnswer(value, request);
  if (!checked.ok) throw launchExit(input, logDir, checked.why, { model: report.model ?? null, usage: report.usage ?? null, costUsd: report.costUsd ?? null });
  await writeFileAtomic(join(input.dir, request.output), reviewText(request, checked.answer));
  return { report };
}

/** The report of one answered request: its model, tokens, and cost at the price table's price. */
function apiReport(model: string, usage: TokenUsage, rateLimitWarning?: RateLimitInfo): HarnessReport {
  const cost = launchCost({ model, usage, costUsd: null }).costUsd;
  return { model, usage, turns: 1, toolUses: 0, ...(cost !== null && { costUsd: cost }), ...(rateLimitWarning && { rateLimitWarning }) };
}

/** What an SDK error comes to: a usage limit (429, 529) with its reset, or a failed try (any other error). */
export function apiFailure(input: LaunchInput, logDir: string, error: unknown, now: Date): ExecutorAnswer {
  const { name, status, headers, message } = error as { name?: string; status?: number; headers?: Headers; message?: string };
  if (name === 'APIUserAbortError') throw new CancelledFailure(`launch ${input.launchId} cancelled`);
  if (status === 429 || status === 529) {
    return {
      report: {},
      usageLimit: { notice: message?.startsWith(String(status)) ? message : `${status} ${message ?? 'rate limited'}`, resetAt: resetFromHeaders(headers, now) },
    };
  }
  throw launchExit(input, logDir, `request failed: ${status !== undefined ? (message ?? status) : ((error as Error).message ?? String(error))}`);
}

/**
 * An SDK client's options for a profile: the worker's key from the variable the profile names (never in
 * a workflow's input), none of the SDK's own retries (the relaunch rule decides), its timeout and base URL.
 */
export function clientOptions(
  profile: Profile,
  keyVariable: string,
  timeoutMs = profile.timeoutMs,
): { apiKey: string; maxRetries: 0; timeout: number; baseURL?: string } {
  const name = profile.apiKeyEnv ?? keyVariable;
  const apiKey = process.env[name];
  if (!apiKey) {
    const message = `profile ${profile.name}: ${name} is not set in the worker's environment (the ${profile.harness} API key; see docs/harnesses.md)`;
    throw ApplicationFailure.create({ type: 'harness-missing', nonRetryable: true, message });
  }
  return { apiKey, maxRetries: 0, timeout: timeoutMs, ...(profile.baseUrl !== undefined && { baseURL: profile.baseUrl }) };
}

/** One model API as a review launch calls it: its one request through its SDK (with the HTTP response, whose headers carry the limits), and what its answer holds. */
export interface ReviewApi<Answer> {
  /** The API key's variable when the profile names none. */
  keyVariable: string;
  /** The request as the heartbeat names it (`anthropic messages`). */
  request: string;
  send: (
    options: ReturnType<typeof clientOptions>,
    profile: Profile,
    request: ReviewRequest,
    signal: AbortSignal,
  ) => Promise<{ data: Answer; response: { headers: Headers } }>;
  /** The model that answered, its tokens, and the answer's value as it came (checked by `writeReview`). */
  read: (answer: Answer) => { model: string; usage: TokenUsage; value: unknown };
}

/** One review launch on a model API: one SDK request under the launch's signal; its error a usage limit or a failed try, its answer checked and written. */
export async function answerReview<Answer>(api: ReviewApi<Answer>, input: LaunchInput, context: AnswerContext): Promise<ExecutorAnswer> {
  const request = await reviewRequest(input);
  const options = clientOptions(input.profile, api.keyVariable);
  context.heartbeat({ pid: null, elapsedMs: 0, turns: 0, toolUses: 0, lastTool: `Request ${api.request}` });
  let sent: Awaited<ReturnType<ReviewApi<Answer>['send']>>;
  try {
    sent = await api.send(options, input.profile, request, context.signal);
  } catch (error) {
    return apiFailure(input, context.logDir, error, new Date());
  }
  const { model, usage, value } = api.read(sent.data);
  return writeReview(input, context.logDir, request, value, apiReport(model, usage, rateLimitWarningFromHeaders(sent.response.headers, new Date())));
}
