#!/usr/bin/env node
// The operator CLI. Runs the compiled package (npm run build, done by npm install).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const entry = join(root, 'dist', 'src', 'client', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write(`commonplace: ${entry} is missing; run \`npm run build\` in ${root}\n`);
  process.exit(1);
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv);
// A finished command exits even while a client connection or a pending workflow result would keep
// the event loop alive (a sweep that stopped is still open on the server). Pipes are synchronous on Linux.
process.exit(process.exitCode ?? 0);
