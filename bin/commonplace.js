#!/usr/bin/env node
// The operator CLI. Runs the compiled package (npm run build, done by npm install): a client command from the
// bundle dist/cli.cjs, a command that runs a worker (`worker`, `dev`, `upgrade`) from dist/worker.cjs, each
// compiled with the V8 code cache beside it. COMMONPLACE_CLI_BUNDLE=0 runs every command from the compiled
// modules under dist/src/ (a --debug stack trace then names each module). docs/cli.md, "How a command starts".
import { isAscii } from 'node:buffer';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const entry = join(root, 'dist', 'src', 'client', 'main.js');

/** The commands that run a worker: they load the worker's SDK, which dist/cli.cjs leaves out. */
const WORKER_COMMANDS = new Set(['worker', 'dev', 'upgrade']);
/** The program's options that take a value, so the command is found past them (`--address host:port review …`). */
const VALUED_OPTIONS = new Set(['--address', '--namespace', '--profile-name', '--config-file']);

/** The first word of the command line that is not an option or an option's value. */
function commandOf(args) {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (VALUED_OPTIONS.has(arg)) index += 1;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The code cache beside a bundle: a first line naming the commands whose run it holds (JSON), then V8's data.
 * V8 caches the functions a script has compiled when the cache is made; a command compiles the code it runs
 * (the connection, the protobuf types, the command's own work) as it runs it, so a cache made after a help page
 * holds little of it. Each command the cache has not seen writes it anew after its run, with its own code
 * added; once each command has run, it is only read.
 */
function readCache(cacheFile) {
  try {
    const file = readFileSync(cacheFile);
    const newline = file.indexOf(10);
    if (newline < 0) return undefined;
    const commands = JSON.parse(file.subarray(0, newline).toString('utf8'));
    if (!Array.isArray(commands)) return undefined;
    return { commands, data: file.subarray(newline + 1) };
  } catch {
    return undefined;
  }
}

/**
 * Loads the bundle as Node loads a CommonJS module, compiled with the code cache beside it. A cache that is
 * missing, that V8 refuses (another Node, other V8 flags), or that has not seen the command is written anew
 * once the command has run: to a temporary file renamed into place, so that commands started at once never
 * read half of one. A package directory the user cannot write keeps working without one.
 */
function loadBundle(bundle) {
  const cacheFile = `${bundle}.cache`;
  const cache = readCache(cacheFile);
  // An ASCII bundle (scripts/bundle-cli.js makes each one so) is read as one-byte text, without decoding UTF-8.
  const bytes = readFileSync(bundle);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData: cache?.data });
  const module = new Module(bundle, undefined);
  module.filename = bundle;
  module.paths = Module._nodeModulePaths(dirname(bundle));
  const moduleRequire = createRequire(bundle);
  script.runInThisContext().call(module.exports, module.exports, moduleRequire, module, bundle, dirname(bundle));
  const { main, exitOnceWritten, ranCommand } = module.exports;
  const writeCache = () => {
    const command = ranCommand() ?? 'help';
    const accepted = cache !== undefined && !script.cachedDataRejected;
    if (accepted && cache.commands.includes(command)) return;
    const commands = accepted ? [...cache.commands, command] : [command];
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(commands)}\n`), script.createCachedData()]));
      renameSync(temporary, cacheFile);
    } catch {
      // A package directory the user cannot write: every start compiles the bundle, as without a cache.
      rmSync(temporary, { force: true });
    }
  };
  return { main, exitOnceWritten, writeCache };
}

const args = process.argv.slice(2);
const bundle = join(root, 'dist', WORKER_COMMANDS.has(commandOf(args)) ? 'worker.cjs' : 'cli.cjs');
let cli;
let writeCache = () => {};
if (process.env.COMMONPLACE_CLI_BUNDLE !== '0' && existsSync(bundle)) {
  ({ writeCache, ...cli } = loadBundle(bundle));
} else {
  if (!existsSync(entry)) {
    process.stderr.write(`commonplace: ${entry} is missing; run \`npm run build\` in ${root}\n`);
    process.exit(1);
  }
  cli = await import(pathToFileURL(entry).href);
}
try {
  await cli.main(process.argv);
} finally {
  writeCache();
}
// A finished command exits even while a client connection or a pending workflow result would keep the
// event loop alive, once what it printed has been written (src/client/shared/exit.ts).
await cli.exitOnceWritten(process.exitCode ?? 0);
