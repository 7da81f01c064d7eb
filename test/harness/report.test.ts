import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findUsageLimit, readHarnessReport } from '../../src/harness/executors/index.js';
import type { HarnessName } from '../../src/harness/profiles.js';
import { parseResetTime } from '../../src/harness/reset-time.js';
import { packageRoot } from '../../src/paths.js';

const fixture = (name: string) => readFile(join(packageRoot(), 'test', 'fixtures', 'harness', name), 'utf8');

describe('reading what each harness reports', () => {
  test('claude: the costliest model of modelUsage, the result usage and total cost', async () => {
    const report = readHarnessReport('claude', await fixture('claude-result-success.json'));
    expect(report).toEqual({
      model: 'claude-sonnet-5',
      usage: { inputTokens: 22, outputTokens: 70, cacheReadTokens: 27840, cacheWriteTokens: 9422 },
      costUsd: 0.052138250000000004,
      resultText: 'Done. I created hello.txt.',
    });
  });

  test('claude: an error result carries its subtype and errors as its error text', async () => {
    const report = readHarnessReport('claude', await fixture('claude-error-max-turns.json'));
    expect(report.errorText).toBe('error_max_turns: Reached maximum number of turns (1)');
    expect(report.model).toBe('claude-sonnet-5');
  });

  test('codex: usage summed over turns, the last agent message, its steps, and no model', async () => {
    const report = readHarnessReport('codex', await fixture('codex-events.jsonl'));
    expect(report).toEqual({
      usage: { inputTokens: 17534, outputTokens: 283, cacheReadTokens: 15616 },
      resultText: 'Done. I created hello.txt.',
      turns: 2,
      toolUses: 1,
    });
    expect(report.model).toBeUndefined();
  });

  test('pi: the assistant message_end events give model, usage and cost', async () => {
    const report = readHarnessReport('pi', await fixture('pi-events.jsonl'));
    expect(report.model).toBe('claude-sonnet-4-5');
    expect(report.usage?.inputTokens).toBeGreaterThan(0);
    expect(report.costUsd).toBeGreaterThan(0);
    expect(report.errorText).toBeUndefined();
  });
});

const now = new Date('2026-12-02T15:00:00Z');

describe('usage-limit notices, as each harness has been seen to print them', () => {
  test.each<[string, HarnessName, string, string, string | undefined]>([
    ['claude, pipe and epoch form, exit 1', 'claude', 'claude-usage-limit-pipe.txt', '', '2025-11-12T13:00:00.000Z'],
    ['claude, a success result with exit 0 and the limit only in `result`', 'claude', 'claude-usage-limit-exit0.json', '', '2026-12-03T02:00:00.000Z'],
    ['claude, "You\'ve hit your limit" with a zone', 'claude', 'claude-hit-your-limit.json', '', '2026-12-02T19:30:00.000Z'],
    ['claude, an API 429 rate limit', 'claude', 'claude-rate-limit-429.json', '', undefined],
    ['codex, --json error events', 'codex', 'codex-usage-limit.jsonl', '', '2026-12-02T18:33:00.000Z'],
    ['codex, the notice on stderr', 'codex', '', 'codex-usage-limit-stderr.txt', '2026-12-02T18:33:00.000Z'],
    ['pi, a provider 429 as an error stop', 'pi', 'pi-usage-limit.jsonl', '', undefined],
  ])('%s is recognised and its reset time read', async (_title, harness, stdoutFile, stderrFile, resetAt) => {
    const stdout = stdoutFile ? await fixture(stdoutFile) : '';
    const stderr = stderrFile ? await fixture(stderrFile) : '';
    const notice = findUsageLimit(harness, stdout, stderr, readHarnessReport(harness, stdout));
    expect(notice).toBeDefined();
    expect(parseResetTime(notice!, { now, timeZone: 'UTC' })?.toISOString()).toBe(resetAt);
  });

  test.each<[string, HarnessName, string]>([
    ['a normal claude result', 'claude', 'claude-result-success.json'],
    ['a normal codex run', 'codex', 'codex-events.jsonl'],
    ['a normal pi run', 'pi', 'pi-events.jsonl'],
  ])('%s is not a usage limit', async (_title, harness, file) => {
    const stdout = await fixture(file);
    expect(findUsageLimit(harness, stdout, '', readHarnessReport(harness, stdout))).toBeUndefined();
  });

  test.each([
    "You've hit your session limit · resets 1pm (Europe/Lisbon)",
    "You've hit your weekly limit · resets Dec 5, 11:30am (Europe/Lisbon)",
    "You've hit your Opus limit · resets 3am",
    'API Error: Rate limit reached',
    "You've hit your monthly spend limit · resets Jan 1, 12am (UTC)",
    "You've hit your org's monthly spend limit",
    "You're out of usage credits · add credits to keep going",
    'Your org is out of usage · contact your admin',
    'API Error: 400 Your credit balance is too low to access the Anthropic API.',
  ])('the current claude wording %j is recognised in an exit-0 success result', (text) => {
    const stdout = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text, modelUsage: {} });
    expect(findUsageLimit('claude', stdout, '', readHarnessReport('claude', stdout))).toBe(text);
  });

  test.each([
    ['codex', 'stderr', 'ERROR: insufficient_quota: You exceeded your current quota, please check your plan and billing details.'],
    ['codex', 'stderr', 'ERROR: usage_not_included: your plan does not include Codex usage'],
    ['pi', 'stderr', 'Error: 429 {"error":{"type":"insufficient_quota","message":"You exceeded your current quota"}}'],
    ['pi', 'stderr', 'Error: 400 Your credit balance is too low to access the Anthropic API.'],
  ] as const)('%s plan and credit exhaustion on %s is a usage limit: %j', (harness, _where, text) => {
    expect(findUsageLimit(harness, '', text, readHarnessReport(harness, ''))).toBe(text);
  });

  test('codex reconnect notices are not a failure of the run', () => {
    const stdout = ['{"type":"error","message":"Reconnecting... 2/5"}', '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'].join('\n');
    const report = readHarnessReport('codex', stdout);
    expect(report.errorText).toBeUndefined();
    expect(findUsageLimit('codex', stdout, '', report)).toBeUndefined();
  });

  test('a long document that discusses usage limits is not itself a usage-limit notice', () => {
    const text = `# Report\n\n${'The system handles "usage limit reached" notices by waiting. '.repeat(40)}`;
    const stdout = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text, modelUsage: { m: { costUSD: 1 } } });
    expect(findUsageLimit('claude', stdout, '', readHarnessReport('claude', stdout))).toBeUndefined();
  });
});

describe('reset times', () => {
  test.each([
    ['Claude AI usage limit reached|1762952400', 'UTC', '2025-11-12T13:00:00.000Z'],
    ['Claude AI usage limit reached|1762952400000', 'UTC', '2025-11-12T13:00:00.000Z'],
    ['5-hour limit reached ∙ resets 2am', 'UTC', '2026-12-03T02:00:00.000Z'],
    ['5-hour limit reached ∙ resets 4pm', 'UTC', '2026-12-02T16:00:00.000Z'],
    ['5-hour limit reached ∙ resets 2am', 'Europe/Berlin', '2026-12-03T01:00:00.000Z'],
    ["You've hit your limit · resets 1:30am (Asia/Dhaka)", 'UTC', '2026-12-02T19:30:00.000Z'],
    ['You’ve hit your usage limit. ... or try again at 3:28 PM.', 'UTC', '2026-12-02T15:28:00.000Z'],
    ['You’ve hit your usage limit. ... or try again at 2:28 PM.', 'UTC', '2026-12-03T14:28:00.000Z'],
    ['You’ve hit your usage limit. try again at Dec 5th, 2026 3:28 PM.', 'UTC', '2026-12-05T15:28:00.000Z'],
    ['rate limited, try again in 20 minutes', 'UTC', '2026-12-02T15:20:00.000Z'],
    ['429 quota exceeded. Try again in ~231 min.', 'UTC', '2026-12-02T18:51:00.000Z'],
    ["You've hit your weekly limit · resets Dec 5, 11:30am (Europe/Lisbon)", 'UTC', '2026-12-05T11:30:00.000Z'],
    ["You've hit your weekly limit · resets Jan 2, 9am (UTC)", 'UTC', '2027-01-02T09:00:00.000Z'],
  ])('%j in %s resets at %s', (text, timeZone, expected) => {
    expect(parseResetTime(text, { now, timeZone })?.toISOString()).toBe(expected);
  });

  test('a notice without a time has no reset time', () => {
    expect(parseResetTime('usage limit reached', { now, timeZone: 'UTC' })).toBeUndefined();
  });
});
