// Preloaded with `node --import` by the tests that ask what a process loads (help-imports, traces): records
// every module the process resolves, one URL a line, in the file COMMONPLACE_LOAD_TRACE names — the ES
// modules through a module resolve hook, the CommonJS ones (a package a CLI bundle requires) as they load.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.COMMONPLACE_LOAD_TRACE;
register('./load-trace-hooks.mjs', import.meta.url, { data: { file } });

const load = Module._load;
Module._load = function traced(request, parent, isMain) {
  const loaded = load.call(this, request, parent, isMain);
  if (file && !request.startsWith('node:') && !Module.isBuiltin(request)) {
    try {
      appendFileSync(file, `${pathToFileURL(Module._resolveFilename(request, parent, isMain)).href}\n`);
    } catch {
      // Resolved by a loader of its own (a bundle's embedded module): nothing on disk to name.
    }
  }
  return loaded;
};
