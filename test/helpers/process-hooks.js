// Before each test file (jest's setupFiles): the process-wide hooks the files before it left in this jest
// worker are let go, so a file pays for its own hooks only, as it would in a process of its own.
//
// Jest loads a file's modules anew but keeps the process: Node's built-in modules, and what is registered
// with them, outlive the file. Two registrations outlived every file and were paid for on every promise of
// every later file in the worker:
// - the Temporal SDK's promise hook (a worker running workflow code on the main thread, as the tests'
//   workers do, installs one per loaded copy of the SDK; it compiles a function per promise to find the
//   promise's workflow): a fifth of a jest worker's CPU once a dozen files had run;
// - every AsyncLocalStorage a file enabled (the SDK's, jest-circus's own), each walked on every promise.
// Node aborts the process if a promise hook is stopped while a promise callback runs (its async IDs no
// longer pair), so the promise hooks are never stopped: one hook of each kind is registered, once, and
// calls the hooks of the current file only. docs/testing.md, "Hooks a test file leaves behind".
import { AsyncLocalStorage } from 'node:async_hooks';
import v8 from 'node:v8';

const key = Symbol.for('commonplace.test.processHooks');
let record = v8.promiseHooks[key];
if (!record) {
  const current = { init: [], before: [], after: [], settled: [] };
  const registered = new Set();
  const createHook = v8.promiseHooks.createHook;
  v8.promiseHooks.createHook = (hooks) => {
    // Node's async_hooks register theirs through the same call, and keep their own account of them.
    const caller = new Error().stack?.split('\n')[2] ?? '';
    if (caller.includes('(node:internal/')) return createHook(hooks);
    const added = [];
    for (const [kind, hook] of Object.entries(hooks)) {
      if (!(kind in current) || typeof hook !== 'function') continue;
      if (!registered.has(kind)) {
        registered.add(kind);
        const list = current[kind];
        createHook({
          [kind]: (...args) => {
            for (let i = 0; i < list.length; i++) list[i](...args);
          },
        });
      }
      current[kind].push(hook);
      added.push([kind, hook]);
    }
    return () => {
      for (const [kind, hook] of added) {
        const index = current[kind].indexOf(hook);
        if (index !== -1) current[kind].splice(index, 1);
      }
    };
  };
  const storages = new Set();
  const enable = AsyncLocalStorage.prototype._enable;
  AsyncLocalStorage.prototype._enable = function recordedEnable(...args) {
    storages.add(this);
    return enable.apply(this, args);
  };
  record = { current, storages };
  v8.promiseHooks[key] = record;
}
for (const list of Object.values(record.current)) list.length = 0;
for (const storage of record.storages) storage.disable();
record.storages.clear();
