// What a run's workers are doing shows where the operator looks: the pending launch's heartbeat
// details, read back by the CLI's progress line (and the Web UI's Pending Activities).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { liveLaunches, liveSuffix } from '../../src/client/shared/live-launches.js';
import { parseJsonLines } from '../../src/harness/json-stream.js';
import { packageRoot } from '../../src/paths.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, scratch, waitFor } from '../helpers/fake.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';

const { env } = useDevServer();

test('a running launch reads as its turn and last tool use, from its heartbeat details', async () => {
  const dir = await scratch();
  const release = join(dir, 'release');
  const events = parseJsonLines(await readFile(join(packageRoot(), 'test', 'fixtures', 'harness', 'claude-stream-success.jsonl'), 'utf8')).filter(
    (event) => event.type !== 'result',
  );
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ events, waitForFile: release, writeDeclared: 'probe ok\n' }] }]);
  const profiles = await fakeProfilesFile(dir, { live: { harness: 'claude', timeout: '5m' } });
  const workflowId = uniqueId('probe/live');
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  let seen: string[] = [];
  await worker.runUntil(async () => {
    const handle = await env().client.workflow.start('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'live', profiles, fakeEnv)] });
    await waitFor(
      'the launch to report its tool use',
      async () => {
        seen = await liveLaunches(env().client, workflowId);
        return seen.some((line) => line.includes('Write'));
      },
      120_000,
    );
    await writeFile(release, '');
    await handle.result().catch(() => undefined);
  });
  expect(seen[0]).toMatch(/^turn \d+ · Write \S+/);
  expect(liveSuffix(seen)).toBe(` · now: ${seen[0]}`);
  expect(await liveLaunches(env().client, workflowId)).toEqual([]);
});
