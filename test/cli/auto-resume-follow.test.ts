/**
 * A followed run that stops on a usage limit with `--auto-resume` resumes by itself, so it is no stop
 * for the operator: the CLI says when it resumes, prints no next command and keeps following until the
 * run ends (here woken early by `commonplace quota open`, which auto-resumed runs obey at once).
 */
import type { Stop } from '../../src/runs/stop.js';
import { sweepNext } from '../../src/runs/run-commands.js';
import { nextLine } from '../../src/client/shared/stop-format.js';
import { runCli, startCli } from '../helpers/cli.js';
import { watchedProcess } from '../helpers/hosts.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep } from '../helpers/sweep.js';

const { address } = useDevServerWithCliWorker();

test('a sweep with --auto-resume that meets a usage limit says it resumes by itself, prints no next command and follows it to its end (exit 0)', async () => {
  const resetEpoch = Math.floor(Date.now() / 1000) + 3 * 3600;
  const { command } = await fakeSweep(
    ({ notes }) => [
      { match: `note = ${notes[1]}`, attempts: [{ usageLimit: `Claude AI usage limit reached|${resetEpoch}` }, { review: 'pass' }] },
      { attempts: [{ review: 'pass' }] },
    ],
    { notes: 2 },
  );
  const env = { TEMPORAL_ADDRESS: address(), NO_COLOR: '1' };
  const sweep = watchedProcess(startCli(command({ concurrency: 1 }, '--auto-resume'), { env }), 'the follow');
  await sweep.said(/resumes by itself/);
  const resetAt = new Date(resetEpoch * 1000).toISOString();
  expect(sweep.stderr()).toMatch(
    new RegExp(`gates/GS-\\S+ waits out a usage limit \\(.*\\); it resumes by itself at \\S+ \\(--auto-resume\\), nothing to type`),
  );
  expect(sweep.ended()).toBe(false);

  // The account's gate holds the reset; opening it wakes the auto-resumed sweep at once.
  const listed = await runCli(['quota', '--json'], { env });
  const gates = (JSON.parse(String(listed.stdout)) as { gates: { account: string; quota?: { resetAt?: string } }[] }).gates;
  const account = gates.find((gate) => gate.quota?.resetAt === resetAt)?.account;
  expect(account).toBeDefined();
  expect((await runCli(['quota', 'open', account!], { env })).exitCode).toBe(0);

  const ended = await sweep.process;
  expect(ended.exitCode).toBe(0);
  expect(String(ended.stdout)).toMatch(/sweep GS-\S+ completed/);
  expect(String(ended.stdout)).not.toMatch(/continue with|--resume/);
}, 240_000);

test.each([
  [
    'a stop it resumes from by itself says there is nothing to type, the resume only as the way to go on sooner',
    '2026-06-01T13:01:00.000Z',
    /^ {2}nothing to type: it resumes by itself at 2026-06-01T13:01:00\.000Z \(--auto-resume\); to go on sooner: .* review run gates --resume GS-1/,
  ],
  ['a stop without auto-resume names its resume as the next command', undefined, /^ {2}continue with: .* review run gates --resume GS-1/],
])('%s', (_title, resumesAt, line) => {
  const stop: Stop = { kind: 'usage-limit', disposition: 'retry', reason: 'usage limit reached', resetAt: '2026-06-01T13:00:00.000Z' };
  const lines = nextLine([stop], 'stopped', sweepNext('GS-1'), '  ', undefined, resumesAt);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(line);
});
