import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ActivityTracker, describeLaunchActivity, describeToolUse } from '../../src/harness/activity.js';
import { JsonLineReader, parseJsonLines } from '../../src/harness/json-stream.js';
import type { HarnessName } from '../../src/harness/profiles.js';
import { cliExecutor, findUsageLimit, readHarnessReport } from '../../src/harness/executors/index.js';
import { packageRoot } from '../../src/paths.js';

const fixture = (name: string) => readFile(join(packageRoot(), 'test', 'fixtures', 'harness', name), 'utf8');
const types = (events: Record<string, unknown>[]) => events.map((event) => event.type);

describe('reading JSON-lines event streams', () => {
  test('banners and warnings between events are skipped, and a last line without a newline still counts', () => {
    expect(types(parseJsonLines('WARNING: proceeding\n{"type":"a"}\nnot json {\n{"type":"b"}'))).toEqual(['a', 'b']);
  });

  test('an event written into the middle of another line is recovered, with the line it broke, on one line or across a newline', async () => {
    const clean = parseJsonLines(await fixture('claude-stream-rate-limit-warning.jsonl'));
    const recovered = parseJsonLines(await fixture('claude-stream-interleaved.jsonl'));
    // The interleaved capture is the clean one with its rate_limit_event moved into two other lines.
    const withoutRateLimits = (events: Record<string, unknown>[]) => events.filter((event) => event.type !== 'rate_limit_event');
    expect(withoutRateLimits(recovered)).toEqual(withoutRateLimits(clean));
    expect(recovered.filter((event) => event.type === 'rate_limit_event')).toHaveLength(2);
  });

  test('read in chunks of any size, a stream gives the same events as read whole', async () => {
    const text = await fixture('claude-stream-interleaved.jsonl');
    for (const size of [1, 7, 100, 4096]) {
      const reader = new JsonLineReader();
      const events = [];
      for (let index = 0; index < text.length; index += size) events.push(...reader.push(text.slice(index, index + size)));
      events.push(...reader.end());
      expect(events).toEqual(parseJsonLines(text));
    }
  });
});

describe('claude on stream-json', () => {
  test('the result gives model, usage and cost as with json output; the stream gives turns and tool uses', async () => {
    const report = readHarnessReport('claude', await fixture('claude-stream-success.jsonl'));
    expect(report).toEqual({
      model: 'claude-sonnet-5',
      usage: { inputTokens: 200, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: 0.0018000000000000002,
      resultText: 'Done. I wrote the file.',
      turns: 2,
      toolUses: 1,
    });
  });

  test('an allowed_warning rate-limit event is reported as a warning with its window and reset', async () => {
    const report = readHarnessReport('claude', await fixture('claude-stream-rate-limit-warning.jsonl'));
    expect(report.rateLimitWarning).toEqual({ status: 'allowed_warning', type: 'five_hour', resetsAt: '2026-12-03T19:45:58.000Z', utilization: 0.95 });
    expect(report.errorText).toBeUndefined();
  });

  test('a rejected rate-limit event is the last rate-limit state, beside the limit notice of the result', async () => {
    const stdout = await fixture('claude-stream-session-limit.jsonl');
    const report = readHarnessReport('claude', stdout);
    expect(report.rateLimit).toEqual({ status: 'rejected', type: 'five_hour', resetsAt: '2026-12-03T19:45:59.000Z' });
    expect(report.model).toBeUndefined(); // modelUsage is empty: no request succeeded
    expect(findUsageLimit('claude', stdout, '', report)).toBe("You've hit your session limit · resets 7:45pm (UTC)");
  });

  test('the old json output (one result object, or the --verbose array) is still read', async () => {
    const single = await fixture('claude-result-success.json');
    expect(readHarnessReport('claude', single).model).toBe('claude-sonnet-5');
    const array = JSON.stringify(parseJsonLines(await fixture('claude-stream-success.jsonl')));
    expect(readHarnessReport('claude', array)).toMatchObject({ model: 'claude-sonnet-5', resultText: 'Done. I wrote the file.', turns: 2 });
  });
});

describe('failures reported with exit 0', () => {
  test("pi: a connection error is the run's error, and no model is reported since no request succeeded", async () => {
    const report = readHarnessReport('pi', await fixture('pi-connection-error.jsonl'));
    expect(report.errorText).toBe('Connection error.');
    expect(report.model).toBeUndefined();
  });

  test("pi: an error followed by a successful answer is not the run's error", () => {
    const message = (stopReason: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ type: 'message_end', message: { role: 'assistant', model: 'm', stopReason, content: [], usage: { input: 1, output: 1 }, ...extra } });
    const report = readHarnessReport('pi', [message('error', { errorMessage: 'overloaded' }), message('stop')].join('\n'));
    expect(report.errorText).toBeUndefined();
    expect(report.model).toBe('m');
  });

  test('pi with retries off: one 429, and the notice is a usage limit', async () => {
    const stdout = await fixture('pi-rate-limit-fail-fast.jsonl');
    expect(parseJsonLines(stdout).filter((event) => event.type === 'auto_retry_start')).toEqual([]);
    expect(findUsageLimit('pi', stdout, '', readHarnessReport('pi', stdout))).toMatch(/rate_limit_error/);
  });
});

describe('what the worker is doing, from its event stream', () => {
  const follow = async (harness: HarnessName, file: string) => {
    const tracker = new ActivityTracker(cliExecutor(harness).dialect);
    for (const event of parseJsonLines(await fixture(file))) tracker.observe(event, Date.parse('2026-12-03T19:00:00Z'));
    return tracker;
  };

  test.each<[HarnessName, string, Record<string, unknown>]>([
    ['claude', 'claude-stream-success.jsonl', { turns: 2, toolUses: 1, lastTool: 'Write out.md', tokens: 202 }],
    ['codex', 'codex-stream-command.jsonl', { turns: 2, toolUses: 1, lastTool: "Run printf 'hello from the stand-in\\\\n' > out.md", tokens: 1060 }],
    ['pi', 'pi-events.jsonl', { turns: 2, toolUses: 1, lastTool: 'Write hello.txt' }],
  ])('%s: turns, tool uses, the last tool and tokens so far', async (harness, file, expected) => {
    expect((await follow(harness, file)).snapshot()).toMatchObject(expected);
  });

  test('claude: an allowed_warning shows while the launch runs', async () => {
    expect((await follow('claude', 'claude-stream-rate-limit-warning.jsonl')).snapshot().rateLimitWarning).toMatchObject({ type: 'five_hour' });
  });

  test('codex: "waiting for network" is tracked from its first notice until anything else happens', async () => {
    const tracker = await follow('codex', 'codex-unreachable.jsonl');
    expect(tracker.unreachableSince).toBe(Date.parse('2026-12-03T19:00:00Z'));
    expect(tracker.snapshot().unreachableSince).toBe('2026-12-03T19:00:00.000Z');
    tracker.observe({ type: 'item.started', item: { id: 'x', type: 'command_execution', command: 'ls' } });
    expect(tracker.unreachableSince).toBeUndefined();
  });

  test.each([
    ['Write', { file_path: 'lens-memory.md', content: 'x' }, 'Write lens-memory.md'],
    ['Bash', { command: 'npm test\nmore' }, 'Bash npm test'],
    ['Grep', { pattern: 'TODO' }, 'Grep TODO'],
    ['Read', { file_path: `/a/${'very-long-directory/'.repeat(5)}file.md` }, `Read …${`/a/${'very-long-directory/'.repeat(5)}file.md`.slice(-59)}`],
    ['TodoWrite', {}, 'TodoWrite'],
  ])('the tool use %s %j reads "%s"', (name, input, expected) => {
    expect(describeToolUse(name, input)).toBe(expected);
  });

  test.each<[Record<string, unknown>, string]>([
    [
      { pid: 1, elapsedMs: 41_200, turns: 3, toolUses: 2, lastTool: 'Write lens-memory.md', tokens: 12_400 },
      'turn 3 · Write lens-memory.md · 12.4k tokens · 41 s',
    ],
    [{ pid: 1, elapsedMs: 500, turns: 0, toolUses: 0 }, 'starting · 0 s'],
    [{ pid: 1, elapsedMs: 185_000, turns: 12, toolUses: 9, tokens: 1_250_000 }, 'turn 12 · 1.3M tokens · 3 min 5 s'],
    [
      { pid: 1, elapsedMs: 3_720_000, turns: 1, toolUses: 0, tokens: 640, rateLimitWarning: { status: 'allowed_warning', type: 'five_hour', resetsAt: null } },
      'turn 1 · 640 tokens · 1 h 2 min · rate-limit warning (five_hour)',
    ],
    [{ pid: 1, elapsedMs: 30_000, turns: 0, toolUses: 0, unreachableSince: '2026-12-03T19:00:00.000Z' }, 'starting · 30 s · cannot reach its endpoint'],
  ])('heartbeat details %j read "%s"', (details, expected) => {
    expect(describeLaunchActivity(details)).toBe(expected);
  });
});
