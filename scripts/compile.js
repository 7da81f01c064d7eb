#!/usr/bin/env node
// The first step of `npm run build`: every TypeScript module under src/ and temporal/ (tsconfig.build.json's
// include) compiled to JavaScript beside its source map under dist/, one module to one file, by esbuild.
// It strips types and checks none: the typecheck is `npm run typecheck` (tsc --noEmit, a static check of
// .ci/run), which also holds every module to `isolatedModules`, so compiling one file at a time loses nothing.
// Under a second where tsc's emit took ten; what runs is the same modules, imports and source maps.
import { build } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));

function sources(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const started = Date.now();
const entryPoints = config.include.flatMap(sources);
const result = await build({
  absWorkingDir: root,
  entryPoints,
  outdir: join(root, 'dist'),
  outbase: root,
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'es2022',
  sourcemap: true,
  tsconfig: join(root, 'tsconfig.build.json'),
  logLevel: 'warning',
});
if (result.errors.length > 0) process.exit(1);
process.stderr.write(
  `compiled: ${entryPoints.length} modules into ${relative(process.cwd(), join(root, 'dist')) || 'dist'}/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
