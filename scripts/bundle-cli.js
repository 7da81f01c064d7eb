#!/usr/bin/env node
// The third step of `npm run build`: the operator CLI's client commands bundled into one CommonJS file,
// dist/cli.cjs, with the V8 code cache of its first run beside it (dist/cli.cjs.cache). bin/commonplace.js
// runs a client command from it: one file read and no module resolution instead of some four hundred
// modules found, read and compiled at every start (docs/cli.md, "How a command starts").
//
// The commands that run a worker (`worker`, `dev`, `upgrade`: they load the worker's SDK and its native
// core) are not in it: bin/commonplace.js runs them from the compiled modules under dist/src/, and the
// bundle holds a stub in their place that says so. The bundle keeps each module's own location: every
// `import.meta.url` in it is the URL its module has under dist/src/, so paths found from it are the same.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const bundle = join(dist, 'cli.cjs');
const started = Date.now();

/** The modules a worker command runs, left out of the bundle: bin/commonplace.js sends those commands elsewhere. */
const WORKER_COMMAND_MODULES = /\/dist\/src\/client\/operate\/(dev-run|worker-run|upgrade-run)\.js$/;
/**
 * Loaded from node_modules when a command needs them, not bundled: the worker's SDK and its native core (never
 * reached by a client command), the model APIs' SDKs and OpenTelemetry's exporters (only a comparison's or a
 * traced command's, with the SDK's OpenTelemetry interceptors), gray-matter (loaded through createRequire).
 */
const EXTERNAL = [
  '@temporalio/worker',
  '@temporalio/core-bridge',
  '@temporalio/testing',
  '@temporalio/interceptors-opentelemetry',
  '@anthropic-ai/sdk',
  'openai',
  '@opentelemetry/*',
  '*.node',
];

const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(builder) {
    builder.onLoad({ filter: /\/dist\/src\/.*\.js$/ }, async (args) => {
      if (WORKER_COMMAND_MODULES.test(args.path)) {
        const name = args.path.replace(/^.*\/operate\//, '');
        return {
          contents: `throw new Error(${JSON.stringify(`commonplace: ${name} runs from the compiled modules (bin/commonplace.js), not from dist/cli.cjs`)});`,
          loader: 'js',
        };
      }
      const source = await readFile(args.path, 'utf8');
      const url = JSON.stringify(relative(dist, args.path).split('\\').join('/'));
      return { contents: source.replaceAll('import.meta.url', `__commonplaceModuleUrl(${url})`), loader: 'js' };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: [join(dist, 'src', 'client', 'main.js')],
  outfile: bundle,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  plugins: [keepModuleUrls],
  banner: {
    js: "const __commonplaceModuleUrl = (path) => require('node:url').pathToFileURL(require('node:path').join(__dirname, path)).href;",
  },
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
if (result.errors.length > 0) process.exit(1);

// A client command never loads the worker's SDK: the bundle imports it only where a worker connection is made.
const importers = Object.entries(result.metafile.inputs)
  .filter(([, input]) => input.imports.some((imported) => imported.path === '@temporalio/worker'))
  .map(([path]) => path)
  .filter((path) => !path.endsWith('dist/src/client/shared/connection.js'));
if (importers.length > 0) {
  rmSync(bundle, { force: true });
  process.stderr.write(`client bundle: ${importers.join(', ')} import the worker's SDK; a client command must not load it\n`);
  process.exit(1);
}

// The code cache: the bundle run once (its help), its compiled code written for every later start.
rmSync(`${bundle}.cache`, { force: true });
execFileSync(process.execPath, [join(root, 'bin', 'commonplace.js'), '--help'], { stdio: ['ignore', 'ignore', 'inherit'] });
process.stderr.write(
  `client bundle: ${relative(process.cwd(), bundle) || bundle} from ${Object.keys(result.metafile.inputs).length} modules in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
