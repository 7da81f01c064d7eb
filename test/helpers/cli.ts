import { execa, type Options } from 'execa';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

export const cliPath = join(packageRoot(), 'bin', 'commonplace.js');

/** Runs the real operator CLI (the compiled package, as an operator would) and returns its result without throwing. */
export async function runCli(args: string[], options: Options & { env?: Record<string, string> } = {}) {
  return execa('node', [cliPath, ...args], { reject: false, timeout: 120_000, ...options });
}

/** Starts a long-running CLI command (a worker, `dev`) in its own process. */
export function startCli(args: string[], options: Options = {}) {
  return execa('node', [cliPath, ...args], { reject: false, ...options });
}
