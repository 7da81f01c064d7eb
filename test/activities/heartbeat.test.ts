import { MockActivityEnvironment } from '@temporalio/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { heartbeating } from '../../src/activities/heartbeat.js';
import { createActivities } from '../../src/activities/index.js';
import { packageRoot } from '../../src/paths.js';

test('a wrapped activity heartbeats while it runs, and returns what the activity returns', async () => {
  const env = new MockActivityEnvironment();
  let beats = 0;
  let sawBeat: () => void = () => undefined;
  const beaten = new Promise<void>((resolve) => (sawBeat = resolve));
  env.on('heartbeat', () => {
    beats += 1;
    sawBeat();
  });
  // The activity finishes only once a heartbeat was seen: a state, not a duration.
  const slow = heartbeating(async (value: number) => {
    await beaten;
    return value * 2;
  });
  await expect(env.run(slow, 21)).resolves.toBe(42);
  expect(beats).toBeGreaterThanOrEqual(1);
});

test('a wrapped activity called outside an activity runs as it is', async () => {
  await expect(heartbeating(async (value: string) => `${value}!`)('ok')).resolves.toBe('ok!');
});

test("every registered activity but the launch and a model-API unit's one activity (each heartbeats through the launch) is wrapped", () => {
  const activities = createActivities({ fakeHarnessPath: '/nonexistent', stateDir: '/nonexistent' });
  const unwrapped = Object.entries(activities)
    .filter(([, activity]) => activity.name !== 'wrapped')
    .map(([name]) => name);
  expect(unwrapped).toEqual(['launch', 'reviewUnit']);
});

test('every activity a workflow schedules has a heartbeat timeout of at most 30 s', () => {
  const dir = join(packageRoot(), 'src', 'workflows');
  const executor = readFileSync(join(packageRoot(), 'src', 'harness', 'executor.ts'), 'utf8');
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  const proxies = files.flatMap((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    // A named timeout (`heartbeatTimeout: launchHeartbeatTimeout`) is read from its constant in the same file, or beside the launch contract.
    const named = (options: string) =>
      options.replace(/heartbeatTimeout: (\w+)/, (whole, name: string) => {
        const constant = new RegExp(`const ${name} = ('\\d+[sm]')`).exec(text) ?? new RegExp(`const ${name} = ('\\d+[sm]')`).exec(executor);
        return constant ? `heartbeatTimeout: ${constant[1]}` : whole;
      });
    return [...text.matchAll(/proxyActivities<Activities>\(\{([\s\S]*?)\}\)/g)].map((match) => ({ file, options: named(match[1] ?? '') }));
  });
  expect(proxies.length).toBeGreaterThan(5);
  const seconds = (options: string) => {
    const value = /heartbeatTimeout: '(\d+)(s|m)'/.exec(options);
    return value ? Number(value[1]) * (value[2] === 'm' ? 60 : 1) : Infinity;
  };
  expect(proxies.filter((proxy) => seconds(proxy.options) > 30).map((proxy) => proxy.file)).toEqual([]);
});
