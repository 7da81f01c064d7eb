#!/usr/bin/env node
// The operator CLI: every command runs from dist/cli.cjs, the compiled package bundled into one file (npm run build,
// done by npm install), required as any CommonJS module is. docs/cli.md, "How a command starts".
import { existsSync } from 'node:fs';
import module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bundle = join(root, 'dist', 'cli.cjs');
if (!existsSync(bundle)) {
  process.stderr.write(`commonplace: ${bundle} is missing; run \`npm run build\` in ${root}\n`);
  process.exit(1);
}
// Node's own compile cache (Node 22.1 and later), in its own directory outside the package; an older Node compiles the bundle at each start.
module.enableCompileCache?.();
const cli = module.createRequire(import.meta.url)(bundle);
await cli.main(process.argv);
// A finished command exits even while a client connection or a pending workflow result would keep the
// event loop alive, once what it printed has been written (src/client/shared/exit.ts).
await cli.exitOnceWritten(process.exitCode ?? 0);
