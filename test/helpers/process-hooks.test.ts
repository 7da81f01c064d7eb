// The per-file set-up (process-hooks.js) in a Node process of its own, loaded twice as jest loads it for two
// files in one worker: what the first file registered is not called in the second; the second file's hooks
// are; Node's own async hooks keep working (stopping their promise hook mid-callback aborts the process).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/paths.js';

const setup = pathToFileURL(join(packageRoot(), 'test', 'helpers', 'process-hooks.js')).href;

function run(script: string): Record<string, unknown> {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, SETUP: setup } });
  return JSON.parse(output) as Record<string, unknown>;
}

test("a file's promise hooks and async local storages end with it; the next file's run; Node's async IDs stay paired", () => {
  const result = run(`
    import v8 from 'node:v8';
    import { AsyncLocalStorage, createHook, executionAsyncId } from 'node:async_hooks';
    const settle = () => new Promise((done) => setImmediate(done));
    await import(process.env.SETUP + '?first-file');
    const calls = { first: 0, second: 0 };
    v8.promiseHooks.createHook({ init() { calls.first++; }, settled() {} });
    const nodeHooks = { before: 0 };
    createHook({ before() { nodeHooks.before++; } }).enable();
    const storage = new AsyncLocalStorage();
    storage.enterWith('first file');
    await Promise.resolve(1);
    const firstCounted = calls.first;
    const storeInFirst = storage.getStore();
    await settle();
    await import(process.env.SETUP + '?second-file');
    v8.promiseHooks.createHook({ init() { calls.second++; } });
    const firstBefore = calls.first;
    const nodeBefore = nodeHooks.before;
    const idInCallback = await Promise.resolve().then(() => executionAsyncId());
    await Promise.all([Promise.resolve(2), new Promise((done) => setTimeout(done, 1))]);
    await settle();
    console.log(JSON.stringify({
      firstCounted,
      firstAfter: calls.first - firstBefore,
      second: calls.second,
      storeInFirst,
      storeAfter: storage.getStore() ?? null,
      nodeHooksAfter: nodeHooks.before > nodeBefore,
      asyncId: idInCallback > 0,
    }));
  `);
  expect(result).toEqual({
    firstCounted: expect.any(Number),
    firstAfter: 0,
    second: expect.any(Number),
    storeInFirst: 'first file',
    storeAfter: null,
    nodeHooksAfter: true,
    asyncId: true,
  });
  expect(result.firstCounted).toBeGreaterThan(0);
  expect(result.second).toBeGreaterThan(0);
});
