// Preloaded with `node --import` by the help-imports test: records every module the process resolves
// (one URL a line) in the file COMMONPLACE_LOAD_TRACE names, through a module resolve hook.
import { register } from 'node:module';

register('./load-trace-hooks.mjs', import.meta.url, { data: { file: process.env.COMMONPLACE_LOAD_TRACE } });
