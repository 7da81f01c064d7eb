#!/usr/bin/env node
// The third step of `npm run build`: the operator CLI bundled into two CommonJS files, each with the V8 code
// cache of its first run beside it (`<bundle>.cache`). bin/commonplace.js starts a command from one of them:
// one file read and no module resolution instead of hundreds of modules found, read and compiled at every
// start (docs/cli.md, "How a command starts").
//
// - dist/cli.cjs, the client commands: everything they load is inside, the Temporal client's SDK included.
//   The commands that run a worker (`worker`, `dev`, `upgrade`) have a stub in it in place of their work,
//   which says where they run from.
// - dist/worker.cjs, the commands that run a worker: the project's modules and their packages, with every
//   Temporal package loaded from node_modules. The worker's SDK starts its workflow threads from its own
//   files and carries a native core, and a second copy of a Temporal package beside the SDK's own would be
//   a second set of its classes.
//
// Each bundle keeps each module's own location: every `import.meta.url` in it is the URL its module has under
// dist/src/, so the paths found from it (the package root, the workflow code, the helpers) are the same.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const started = Date.now();

/** The modules a worker command runs, left out of the client bundle. */
const WORKER_COMMAND_MODULES = /\/dist\/src\/client\/operate\/(dev-run|worker-run|upgrade-run)\.js$/;
/**
 * Loaded from node_modules when a command needs them, in both bundles: the model APIs' SDKs and OpenTelemetry's
 * exporters (only a comparison's, a worker's or a traced command's), with the Temporal SDK's OpenTelemetry
 * interceptors, and native addons.
 */
const SHARED_EXTERNAL = ['@temporalio/interceptors-opentelemetry', '@anthropic-ai/sdk', 'openai', '@opentelemetry/*', '*.node'];

const BUNDLES = [
  {
    file: 'cli.cjs',
    external: [...SHARED_EXTERNAL, '@temporalio/worker', '@temporalio/core-bridge', '@temporalio/testing'],
    stubWorkerCommands: true,
    clientProtos: true,
    // A client command never loads the worker's SDK: only the worker connection's code imports it.
    refuse: (path, input) =>
      input.imports.some((imported) => imported.path === '@temporalio/worker') && !path.endsWith('dist/src/client/shared/connection.js')
        ? "imports the worker's SDK; a client command must not load it"
        : undefined,
    warm: ['--help'],
  },
  {
    file: 'worker.cjs',
    external: [...SHARED_EXTERNAL, '@temporalio/*'],
    stubWorkerCommands: false,
    refuse: (path) => (path.includes('node_modules/@temporalio/') ? 'is a Temporal package, which the worker bundle loads from node_modules' : undefined),
    warm: ['worker', '--help'],
  },
];

/** Keeps each project module's `import.meta.url`, and puts the stubs in the client bundle. */
function projectModules(stubWorkerCommands) {
  return {
    name: 'project-modules',
    setup(builder) {
      builder.onLoad({ filter: /\/dist\/src\/.*\.js$/ }, async (args) => {
        if (stubWorkerCommands && WORKER_COMMAND_MODULES.test(args.path)) {
          const name = args.path.replace(/^.*\/operate\//, '');
          return {
            contents: `throw new Error(${JSON.stringify(`commonplace: ${name} runs from dist/worker.cjs (bin/commonplace.js), not from dist/cli.cjs`)});`,
            loader: 'js',
          };
        }
        const source = await readFile(args.path, 'utf8');
        const url = JSON.stringify(relative(dist, args.path).split('\\').join('/'));
        return { contents: source.replaceAll('import.meta.url', `__commonplaceModuleUrl(${url})`), loader: 'js' };
      });
    },
  };
}

/**
 * The Temporal API's protobuf types as a client command needs them. `@temporalio/proto`'s JSON module is one
 * object literal of every type the SDK knows (1.4 MB of source), built into protobufjs types as it loads: a sixth
 * of a client command's CPU. A client never speaks the worker's core protocol (`coresdk`) or Temporal Cloud's
 * operations API (`temporal.api.cloud`), a third of the types; the rest (the workflow, operator, test and
 * health services with every message they reach) is kept whole, and handed to protobufjs as a JSON string
 * (`JSON.parse`), which V8 reads faster than it compiles and runs a literal of the same size.
 */
function clientProtos() {
  return {
    name: 'client-protos',
    setup(builder) {
      builder.onLoad({ filter: /[\\/]@temporalio[\\/]proto[\\/]protos[\\/]json-module\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        const start = source.indexOf('.addJSON(');
        const end = source.lastIndexOf('});');
        if (start < 0 || end < start) throw new Error(`${args.path}: not the JSON module this build knows (no .addJSON({...}) call)`);
        const types = JSON.parse(source.slice(start + '.addJSON('.length, end + 1));
        const api = types.temporal?.nested?.api?.nested;
        if (types.coresdk === undefined || api?.cloud === undefined || api.workflowservice === undefined)
          throw new Error(`${args.path}: the namespaces this build prunes or keeps are not where it expects them`);
        delete types.coresdk;
        delete api.cloud;
        const contents = [
          "'use strict';",
          "var $protobuf = require('protobufjs/light');",
          "var $root = $protobuf.roots['__temporal'] || ($protobuf.roots['__temporal'] = new $protobuf.Root());",
          `module.exports = $root.addJSON(JSON.parse(${JSON.stringify(JSON.stringify(types))}));`,
        ].join('\n');
        return { contents, loader: 'js' };
      });
    },
  };
}

/**
 * The bundle in ASCII only: esbuild escapes strings and names (`charset: 'ascii'`) but leaves a regular
 * expression's characters and comments as written, and one character past U+00FF made the whole 6 MB source a
 * two-byte string, decoded from UTF-8 at every start (tens of milliseconds). Each such character is written as
 * its `\u` escape, which means the same in a regular expression, a string or a comment (template literals are
 * lowered to strings above); bin/commonplace.js reads an ASCII bundle as one-byte text.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  const escape = (unit) => `\\u${unit.toString(16).padStart(4, '0')}`;
  const ascii = text.replace(/[\u0080-\uffff]/g, (char) => escape(char.charCodeAt(0)));
  if (ascii !== text) writeFileSync(file, ascii);
}

for (const spec of BUNDLES) {
  const outfile = join(dist, spec.file);
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(dist, 'src', 'client', 'main.js')],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: spec.external,
    plugins: [projectModules(spec.stubWorkerCommands), ...(spec.clientProtos ? [clientProtos()] : [])],
    banner: {
      js: "const __commonplaceModuleUrl = (path) => require('node:url').pathToFileURL(require('node:path').join(__dirname, path)).href;",
    },
    // import() of a package left outside becomes a require(): a script compiled with a code cache has no ES
    // module loader of its own to import with (Node 20), and every package left outside is CommonJS.
    // Template literals are lowered to strings, so that a raw one (String.raw) holds no character that escaping
    // would change (asciiOnly).
    supported: { 'dynamic-import': false, 'template-literal': false },
    charset: 'ascii',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  if (result.errors.length > 0) process.exit(1);
  const refused = Object.entries(result.metafile.inputs).flatMap(([path, input]) => {
    const why = spec.refuse(path, input);
    return why === undefined ? [] : [`${path} ${why}`];
  });
  if (refused.length > 0) {
    rmSync(outfile, { force: true });
    process.stderr.write(`CLI bundle ${spec.file}: ${refused.join('; ')}\n`);
    process.exit(1);
  }
  asciiOnly(outfile);
  // The code cache: the bundle run once (a help page), its compiled code written for every later start.
  rmSync(`${outfile}.cache`, { force: true });
  execFileSync(process.execPath, [join(root, 'bin', 'commonplace.js'), ...spec.warm], { stdio: ['ignore', 'ignore', 'inherit'] });
  process.stderr.write(`CLI bundle: dist/${spec.file} from ${Object.keys(result.metafile.inputs).length} modules\n`);
}
process.stderr.write(`CLI bundles in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
// The build is whole: scripts/build-if-stale.sh builds again only when a file it reads is newer than this.
writeFileSync(join(dist, '.built'), `${new Date().toISOString()}\n`);
