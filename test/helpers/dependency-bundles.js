// Third-party packages of many small modules, each bundled once per test run into one file that jest's workers
// load instead (the global setup writes them; jest.config.js maps each package's name to its file).
//
// Jest gives every test file a module registry of its own: each file finds, reads, wraps and compiles every
// module it reaches anew, about 1,300 of them for a file that starts a Temporal worker. Half of those are
// the packages below (rxjs alone is 226 files), and a module costs jest about a millisecond whatever its
// size. Bundled, a file loads about 660 (docs/testing.md, "Packages bundled for the test files").
//
// The code is the packages' own, unchanged; only how it is split into files differs. A group's packages are
// in one bundle, so that what they share (ajv-formats' code generator and ajv's, rxjs's operators and its
// Observable) is one copy, as in node_modules. Left out: packages that read files beside their own
// (source-map's WebAssembly), and the Temporal SDK's, which starts threads and a native library from its
// own paths, and protobufjs, which the test environment loads once a jest worker with the Temporal API's types
// (test/helpers/test-environment.js). Only jest's workers load these files; the CLI, the workers it starts and
// every other process load node_modules as an operator's do.
import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Each group is one bundle. `cjs` for packages CommonJS code requires (the Temporal SDK's lib/): a shim per
 * name hands out its part of the group's exports, listing their names for jest's import of CommonJS from an
 * ES module. `esm` for packages only ES modules import (`defaultExport` when the package has one).
 */
export const DEPENDENCY_GROUPS = [
  { name: 'rxjs', format: 'cjs', specifiers: ['rxjs', 'rxjs/operators'] },
  { name: 'memfs', format: 'cjs', specifiers: ['memfs'] },
  { name: 'unionfs', format: 'cjs', specifiers: ['unionfs'] },
  { name: 'uuid', format: 'cjs', specifiers: ['uuid'] },
  { name: 'yaml', format: 'cjs', specifiers: ['yaml'] },
  { name: 'ajv', format: 'cjs', specifiers: ['ajv', 'ajv/dist/2020.js', 'ajv-formats'] },
  { name: 'grpc-js', format: 'cjs', specifiers: ['@grpc/grpc-js'] },
  { name: 'nexus-rpc', format: 'cjs', specifiers: ['nexus-rpc'] },
  { name: 'pure-rand', format: 'cjs', specifiers: ['pure-rand'] },
  { name: 'execa', format: 'esm', specifiers: ['execa'] },
  { name: 'zod', format: 'esm', specifiers: ['zod'], defaultExport: true },
];

/** The file a package name is mapped to: the name in a file's letters, with the module format's extension. */
const fileName = (specifier, format) => `${specifier.replace(/[^a-z0-9]+/gi, '-').replace(/^-/, '')}.${format === 'esm' ? 'mjs' : 'cjs'}`;

/** A moduleNameMapper entry: exactly this package name, to `file` under `dir` (relative to `<rootDir>`). */
export const mapperEntry = (specifier, dir, format = 'cjs') => [
  `^${specifier.replace(/[/.]/g, (c) => `\\${c}`)}$`,
  `<rootDir>/${dir}/${fileName(specifier, format)}`,
];

/** jest's moduleNameMapper entries: each package name to its file under `<rootDir>/.commonplace/test/deps/`. */
export function dependencyMapper() {
  const entries = DEPENDENCY_GROUPS.flatMap(({ format, specifiers }) =>
    specifiers.map((specifier) => mapperEntry(specifier, '.commonplace/test/deps', format)),
  );
  return Object.fromEntries(entries);
}

/** Writes a file whole, then renames it into place: a run that starts beside another never loads half of one. */
function writeWhole(path, write) {
  const temporary = `${path}.${process.pid}`;
  return Promise.resolve(write(temporary)).then(() => renameSync(temporary, path));
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Bundles every group into `<root>/.commonplace/test/deps/` (about a second). */
export async function bundleDependencies(root) {
  const dir = join(root, '.commonplace', 'test', 'deps');
  mkdirSync(dir, { recursive: true });
  const require = createRequire(import.meta.url);
  const common = { bundle: true, platform: 'node', logLevel: 'warning', absWorkingDir: root };
  await Promise.all(
    DEPENDENCY_GROUPS.map(async ({ name, format, specifiers, defaultExport }) => {
      if (format === 'esm') {
        const [specifier] = specifiers;
        const contents = `export * from '${specifier}';${defaultExport ? ` export { default } from '${specifier}';` : ''}`;
        // The CommonJS modules inside (execa's cross-spawn) require Node's built-ins: a require of the bundle's own.
        const banner = "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";
        await writeWhole(join(dir, fileName(specifier, format)), (outfile) =>
          build({ ...common, stdin: { contents, resolveDir: root, loader: 'js' }, format: 'esm', banner: { js: banner }, outfile }),
        );
        return;
      }
      const group = `${name}.group.cjs`;
      const contents = `module.exports = {${specifiers.map((specifier) => `${JSON.stringify(specifier)}: require(${JSON.stringify(specifier)})`).join(', ')}};`;
      await writeWhole(join(dir, group), (outfile) => build({ ...common, stdin: { contents, resolveDir: root, loader: 'js' }, format: 'cjs', outfile }));
      // The names each shim hands out, read from the bundle itself (one file, not the package's many).
      const exported = require(join(dir, group));
      for (const specifier of specifiers) {
        // Listed as cjs-module-lexer reads them (`0 && (module.exports = {…})`, as esbuild annotates its own output).
        const names = Object.keys(exported[specifier]).filter((key) => key !== 'default' && key !== '__esModule');
        const listed = names.map((key) => `${identifier.test(key) ? key : JSON.stringify(key)}: 0`).join(', ');
        const shim = `'use strict';\nmodule.exports = require('./${group}')[${JSON.stringify(specifier)}];\n0 && (module.exports = { ${listed} });\n`;
        await writeWhole(join(dir, fileName(specifier, format)), (path) => writeFileSync(path, shim));
      }
    }),
  );
}
