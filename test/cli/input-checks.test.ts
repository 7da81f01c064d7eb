import { heartbeatThrottleOption, workflowThreadsOption } from '../../src/client/operate/worker-options.js';
import { corpusCopy } from '../helpers/kb.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';

// No Temporal server listens at this address: a check that passed would go on to "cannot reach".
const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

async function cli(args: string[]) {
  const result = await runCli(args, { env: offline });
  return { exitCode: result.exitCode, stderr: String(result.stderr) };
}

describe('inputs are checked in the client before anything starts', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await corpusCopy();
  });

  test('an unknown profile is a one-line error naming the known ones', async () => {
    const result = await cli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'nosuch']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/unknown worker profile "nosuch" in .*worker-profiles\.yaml \(known: .*claude/);
    expect(result.stderr).not.toMatch(/cannot reach|at .*\.js:\d+/);
  });

  test('a --scenario file that does not exist is refused', async () => {
    const result = await cli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', join(checkout, 'no-such-scenario.json')]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/--scenario .*no-such-scenario\.json: no such file/);
  });

  test('a profiles file with errors is refused, naming the file and the key', async () => {
    const dir = await scratch();
    const profiles = join(dir, 'profiles.yaml');
    await writeFile(profiles, 'profiles:\n  fake:\n    harness: nosuch\n');
    const result = await cli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--profiles', profiles]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/invalid worker profiles in .*profiles\.yaml/);
    expect(result.stderr).toMatch(/fake\.harness/);
  });

  test('a --notes glob that matches no note is refused', async () => {
    const result = await cli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--notes', 'kb/notes/no-such-*.md']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/kb\/notes\/no-such-\*\.md: matches no/);
  });

  test('review schedule create with an unknown profile is refused', async () => {
    const result = await cli(['review', 'schedule', 'create', 'nightly', '--every', '24h', '--kb', checkout, '--profile', 'nosuch']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/unknown worker profile "nosuch"/);
  });

  test('worker --max-launches that is not a positive whole number is refused', async () => {
    const result = await cli(['worker', '--max-launches', 'abc']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/--max-launches must be a positive whole number, got "abc"/);
  });

  test('worker --heartbeat-throttle that is not seconds above 0 and at most 60 is refused, naming it and its variable', async () => {
    for (const bad of ['0', '-1', 'abc', '61']) {
      const result = await cli(['worker', '--heartbeat-throttle', bad]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(
        `--heartbeat-throttle (or COMMONPLACE_HEARTBEAT_THROTTLE) must be seconds above 0 and at most 60, such as 2 or 0.5, got "${bad}"`,
      );
    }
  });

  test('--heartbeat-throttle in seconds is the SDK duration in milliseconds; unset leaves the SDK its own', () => {
    expect(heartbeatThrottleOption('1')).toBe(1000);
    expect(heartbeatThrottleOption('0.5')).toBe(500);
    expect(heartbeatThrottleOption(undefined)).toBeUndefined();
    expect(heartbeatThrottleOption('')).toBeUndefined();
  });

  test('worker --workflow-threads that is not a whole number from 0 to 16 is refused, naming it and its variable', async () => {
    for (const bad of ['-1', 'abc', '1.5', '17']) {
      const result = await cli(['worker', '--workflow-threads', bad]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`--workflow-threads (or COMMONPLACE_WORKFLOW_THREADS) must be a whole number from 0 to 16, got "${bad}"`);
    }
  });

  test('--workflow-threads is the number of threads, 0 the main thread; unset leaves the SDK its own', () => {
    expect(workflowThreadsOption('0')).toBe(0);
    expect(workflowThreadsOption('4')).toBe(4);
    expect(workflowThreadsOption(undefined)).toBeUndefined();
    expect(workflowThreadsOption('')).toBeUndefined();
  });

  test('a good input gets past the checks to the server (and says it cannot reach it)', async () => {
    const result = await cli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--notes', 'kb/notes/agent-is-a-tool-loop.md']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/cannot reach|unreachable|connect/i);
  });
});
