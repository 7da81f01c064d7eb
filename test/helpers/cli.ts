import { execa, type Options } from 'execa';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/paths.js';

export const cliPath = join(packageRoot(), 'bin', 'commonplace.js');

/** Runs the real operator CLI (the compiled package, as an operator would) and returns its result without throwing. */
export async function runCli(args: string[], options: Options & { env?: Record<string, string> } = {}) {
  return execa('node', [cliPath, ...args], { reject: false, timeout: 120_000, ...options });
}

/**
 * Runs the CLI from the compiled modules under dist/src/ rather than the bundle bin/commonplace.js requires (as if
 * started as bin/commonplace.js): what the bundle is held to, and what a test traces module by module. `nodeArgs` are
 * node's own options (`--import`).
 */
export async function runModules(args: string[], options: Options & { env?: Record<string, string> } = {}, nodeArgs: string[] = []) {
  const main = pathToFileURL(join(packageRoot(), 'dist', 'src', 'client', 'main.js')).href;
  const script = [
    `process.argv.splice(1, 0, ${JSON.stringify(cliPath)});`,
    `const cli = await import(${JSON.stringify(main)});`,
    'await cli.main(process.argv);',
    'await cli.exitOnceWritten(process.exitCode ?? 0);',
  ].join(' ');
  return execa('node', [...nodeArgs, '--input-type=module', '-e', script, '--', ...args], { reject: false, timeout: 120_000, ...options });
}

/** Starts a long-running CLI command (a worker, `dev`) in its own process. */
export function startCli(args: string[], options: Options = {}) {
  return execa('node', [cliPath, ...args], { reject: false, ...options });
}
