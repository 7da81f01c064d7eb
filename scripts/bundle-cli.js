#!/usr/bin/env node
// The third step of `npm run build`: the operator CLI bundled into one CommonJS file, dist/cli.cjs, which
// bin/commonplace.js requires for every command: one file read instead of hundreds of modules found and read at
// every start (docs/cli.md, "How a command starts").
//
// Every Temporal package is loaded from node_modules: the worker's SDK starts its workflow threads from its own
// files and carries a native core, and a second copy of a Temporal package beside the SDK's own would be a
// second set of its classes. So are the model APIs' SDKs and OpenTelemetry's packages (only a comparison's, a
// worker's or a traced command's), and native addons.
//
// Each project module keeps its own location: every `import.meta.url` in the bundle is the URL its module has
// under dist/src/, so the paths found from it (the package root, the workflow code, the helpers) are the same.
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const started = Date.now();

/** Keeps each project module's `import.meta.url`. */
const projectModules = {
  name: 'project-modules',
  setup(builder) {
    builder.onLoad({ filter: /\/dist\/src\/.*\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const url = JSON.stringify(relative(dist, args.path).split('\\').join('/'));
      return { contents: source.replaceAll('import.meta.url', `__commonplaceModuleUrl(${url})`), loader: 'js' };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: [join(dist, 'src', 'client', 'main.js')],
  outfile: join(dist, 'cli.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['@temporalio/*', '@anthropic-ai/sdk', 'openai', '@opentelemetry/*', '*.node'],
  plugins: [projectModules],
  banner: {
    js: "const __commonplaceModuleUrl = (path) => require('node:url').pathToFileURL(require('node:path').join(__dirname, path)).href;",
  },
  // import() of a package left outside becomes a require(), so that each loads once, as CommonJS, whether the
  // code imports it with import() or at the top of a module.
  supported: { 'dynamic-import': false },
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
if (result.errors.length > 0) process.exit(1);
process.stderr.write(
  `CLI bundle: dist/cli.cjs from ${Object.keys(result.metafile.inputs).length} modules in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
// The build is whole: scripts/build-if-stale.sh builds again only when a file it reads is newer than this.
writeFileSync(join(dist, '.built'), `${new Date().toISOString()}\n`);
