import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed package's root, found by walking up to its package.json, so paths work from src/ (tests) and dist/ (the CLI) alike. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'commonplace-temporal') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('commonplace: cannot find the package root (package.json named commonplace-temporal)');
    dir = parent;
  }
}

/** Where the running code lives: '.ts' under the test runner, '.js' once compiled. */
export const sourceExtension = fileURLToPath(import.meta.url).endsWith('.ts') ? '.ts' : '.js';
