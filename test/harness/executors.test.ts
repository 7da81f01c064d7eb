import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createHarnessActivities } from '../../src/activities/harness/launch.js';
import type { LaunchInput, UsageLimitDetails } from '../../src/activities/index.js';
import { sha256 } from '../../src/fs/digest.js';
import type { ApiExecutor, ExecutorAnswer } from '../../src/harness/executor.js';
import { executors } from '../../src/harness/executors/index.js';
import { harnessNames } from '../../src/harness/profiles.js';
import { fakeHarnessPath } from '../../src/worker.js';
import { fakeProfile, scratch } from '../helpers/fake.js';

/** A model-API executor as the next one will be: no process, one answer written under the launch directory. */
function apiExecutor(answer: (input: LaunchInput) => ExecutorAnswer & { text?: string }): ApiExecutor {
  return {
    kind: 'api',
    name: 'fake',
    async answer(input, { heartbeat }) {
      heartbeat({ pid: null, elapsedMs: 0, turns: 1, toolUses: 0 });
      const answered = answer(input);
      if (answered.text !== undefined) {
        for (const output of input.outputs) {
          await mkdir(dirname(join(input.dir, output)), { recursive: true });
          await writeFile(join(input.dir, output), answered.text);
        }
      }
      return answered;
    },
  };
}

async function launchInput(): Promise<LaunchInput> {
  const dir = await scratch();
  return {
    launchId: 'test/api',
    profile: fakeProfile({ name: 'api', model: 'profile-model', env: {} }),
    dir,
    prompt: 'judge it\n',
    outputs: ['review.md'],
    files: { 'note.md': '# A note\n' },
  };
}

describe('executors', () => {
  test('every name the profile key accepts has an executor of that name in the table', () => {
    expect(Object.keys(executors).sort()).toEqual([...harnessNames].sort());
    for (const [name, executor] of Object.entries(executors)) expect(executor.name).toBe(name);
  });

  test('a model-API executor answers through the same launch activity: its outputs digested in the same result, no process started', async () => {
    const { launch } = createHarnessActivities({
      fakeHarnessPath,
      executors: {
        fake: apiExecutor(() => ({ text: 'Result: pass\n', report: { model: 'api-model', usage: { inputTokens: 10, outputTokens: 3 }, costUsd: 0.001 } })),
      },
    });
    const input = await launchInput();
    const beats: unknown[] = [];
    const env = new MockActivityEnvironment();
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const result = await env.run(launch, input);
    expect(result).toMatchObject({
      launchId: 'test/api',
      exitCode: 0,
      timedOut: false,
      outputs: [{ path: 'review.md', sha256: sha256('Result: pass\n'), size: 13 }],
      missing: [],
      model: 'api-model',
      modelSource: 'harness',
      usage: { inputTokens: 10, outputTokens: 3 },
      costUsd: 0.001,
      try: 1,
    });
    expect(beats.length).toBeGreaterThan(0);
    await expect(access(join(input.dir, 'note.md'))).resolves.toBeUndefined();
    await expect(access(join(input.dir, '.launch', 'current.json'))).rejects.toThrow(/ENOENT/);
  });

  test("a model-API executor's usage limit is the same non-retryable failure as a CLI's, its outputs set aside", async () => {
    const { launch } = createHarnessActivities({
      fakeHarnessPath,
      executors: {
        fake: apiExecutor(() => ({ text: 'partial', report: {}, usageLimit: { notice: 'rate limit: retry after 60 s', resetAt: '2026-12-04T20:00:00.000Z' } })),
      },
    });
    const input = await launchInput();
    const failure = await new MockActivityEnvironment().run(launch, input).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe('usage-limit');
    expect((failure as ApplicationFailure).nonRetryable).toBe(true);
    expect(((failure as ApplicationFailure).details?.[0] as UsageLimitDetails).resetAt).toBe('2026-12-04T20:00:00.000Z');
    await expect(access(join(input.dir, 'review.md'))).rejects.toThrow(/ENOENT/);
    await expect(access(join(input.dir, '.launch', 'try-1', 'aside', 'review.md'))).resolves.toBeUndefined();
  });
});
